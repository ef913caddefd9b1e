// MPI-4's large-count point-to-point (the _c forms: counts and sizes as MPI_Count). mgen's
// messages stay under 2 GiB (MPI_ERR_COUNT beyond), so each form narrows its count to int
// and calls the int form; a count beyond int fails with MPI_ERR_COUNT naming the call. The
// status queries report counts as MPI_Count.
#include <fmt/format.h>

#include <climits>

#include "core/world.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

int narrow(MPI_Count count) {
  if (count > INT_MAX || count < INT_MIN) {
    fail(MPI_ERR_COUNT, fmt::format("a count of {} (beyond 2^31) is not supported: mgen's messages stay under 2 GiB",
                                    static_cast<long long>(count)));
  }
  return static_cast<int>(count);
}

}  // namespace

extern "C" {

int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return call("MPI_Send_c", c, [&] { return PMPI_Send(buf, narrow(count), type, dest, tag, c); });
}
MGEN_MPI_ALIAS(Send_c)

int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return call("MPI_Ssend_c", c, [&] { return PMPI_Ssend(buf, narrow(count), type, dest, tag, c); });
}
MGEN_MPI_ALIAS(Ssend_c)

int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return call("MPI_Bsend_c", c, [&] { return PMPI_Bsend(buf, narrow(count), type, dest, tag, c); });
}
MGEN_MPI_ALIAS(Bsend_c)

int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return call("MPI_Rsend_c", c, [&] { return PMPI_Rsend(buf, narrow(count), type, dest, tag, c); });
}
MGEN_MPI_ALIAS(Rsend_c)

int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Isend_c", c, [&] { return PMPI_Isend(buf, narrow(count), type, dest, tag, c, r); });
}
MGEN_MPI_ALIAS(Isend_c)

int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Issend_c", c, [&] { return PMPI_Issend(buf, narrow(count), type, dest, tag, c, r); });
}
MGEN_MPI_ALIAS(Issend_c)

int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Ibsend_c", c, [&] { return PMPI_Ibsend(buf, narrow(count), type, dest, tag, c, r); });
}
MGEN_MPI_ALIAS(Ibsend_c)

int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Irsend_c", c, [&] { return PMPI_Irsend(buf, narrow(count), type, dest, tag, c, r); });
}
MGEN_MPI_ALIAS(Irsend_c)

int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                     MPI_Request* r) {
  return call("MPI_Send_init_c", c, [&] { return PMPI_Send_init(buf, narrow(count), type, dest, tag, c, r); });
}
MGEN_MPI_ALIAS(Send_init_c)

int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                      MPI_Request* r) {
  return call("MPI_Ssend_init_c", c, [&] { return PMPI_Ssend_init(buf, narrow(count), type, dest, tag, c, r); });
}
MGEN_MPI_ALIAS(Ssend_init_c)

int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                      MPI_Request* r) {
  return call("MPI_Bsend_init_c", c, [&] { return PMPI_Bsend_init(buf, narrow(count), type, dest, tag, c, r); });
}
MGEN_MPI_ALIAS(Bsend_init_c)

int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                      MPI_Request* r) {
  return call("MPI_Rsend_init_c", c, [&] { return PMPI_Rsend_init(buf, narrow(count), type, dest, tag, c, r); });
}
MGEN_MPI_ALIAS(Rsend_init_c)

int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm c, MPI_Status* status) {
  return call("MPI_Recv_c", c, [&] { return PMPI_Recv(buf, narrow(count), type, source, tag, c, status); });
}
MGEN_MPI_ALIAS(Recv_c)

int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Irecv_c", c, [&] { return PMPI_Irecv(buf, narrow(count), type, source, tag, c, r); });
}
MGEN_MPI_ALIAS(Irecv_c)

int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Recv_init_c", c, [&] { return PMPI_Recv_init(buf, narrow(count), type, source, tag, c, r); });
}
MGEN_MPI_ALIAS(Recv_init_c)

int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm c,
                    MPI_Status* status) {
  return call("MPI_Sendrecv_c", c, [&] {
    return PMPI_Sendrecv(sendbuf, narrow(sendcount), sendtype, dest, sendtag, recvbuf, narrow(recvcount), recvtype,
                         source, recvtag, c, status);
  });
}
MGEN_MPI_ALIAS(Sendrecv_c)

int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm c, MPI_Status* status) {
  return call("MPI_Sendrecv_replace_c", c, [&] {
    return PMPI_Sendrecv_replace(buf, narrow(count), type, dest, sendtag, source, recvtag, c, status);
  });
}
MGEN_MPI_ALIAS(Sendrecv_replace_c)

int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm c,
                     MPI_Request* r) {
  return call("MPI_Isendrecv_c", c, [&] {
    return PMPI_Isendrecv(sendbuf, narrow(sendcount), sendtype, dest, sendtag, recvbuf, narrow(recvcount), recvtype,
                          source, recvtag, c, r);
  });
}
MGEN_MPI_ALIAS(Isendrecv_c)

int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag, int source,
                             int recvtag, MPI_Comm c, MPI_Request* r) {
  return call("MPI_Isendrecv_replace_c", c,
              [&] { return PMPI_Isendrecv_replace(buf, narrow(count), type, dest, sendtag, source, recvtag, c, r); });
}
MGEN_MPI_ALIAS(Isendrecv_replace_c)

int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  return call("MPI_Mrecv_c", MPI_COMM_WORLD, [&] { return PMPI_Mrecv(buf, narrow(count), type, message, status); });
}
MGEN_MPI_ALIAS(Mrecv_c)

int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message, MPI_Request* r) {
  return call("MPI_Imrecv_c", MPI_COMM_WORLD, [&] { return PMPI_Imrecv(buf, narrow(count), type, message, r); });
}
MGEN_MPI_ALIAS(Imrecv_c)

int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  return call("MPI_Buffer_attach_c", MPI_COMM_WORLD, [&] { return PMPI_Buffer_attach(buffer, narrow(size)); });
}
MGEN_MPI_ALIAS(Buffer_attach_c)

int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return call("MPI_Buffer_detach_c", MPI_COMM_WORLD, [&] {
    int n = 0;
    const int rc = PMPI_Buffer_detach(buffer_addr, &n);
    *size = n;
    return rc;
  });
}
MGEN_MPI_ALIAS(Buffer_detach_c)

// Whole elements of `type` received (MPI_UNDEFINED if the bytes are not a whole number).
int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype type, MPI_Count* count) {
  return call("MPI_Get_count_c", MPI_COMM_WORLD, [&] {
    const uint64_t bytes = status_bytes(status);
    const DType& t = dtype(type);
    *count = t.size == 0 ? 0 : bytes % t.size ? MPI_UNDEFINED : static_cast<MPI_Count>(bytes / t.size);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Get_count_c)

int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype type, MPI_Count* count) {
  return call("MPI_Get_elements_c", MPI_COMM_WORLD, [&] { return PMPI_Get_elements_x(status, type, count); });
}
MGEN_MPI_ALIAS(Get_elements_c)

}  // extern "C"
