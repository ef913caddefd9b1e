/* mgen.h — the MGEN program interface.
 *
 * An MGEN program (NSIM-ACE §2.2) is an MPI-like program whose entry point is MGEN_Main
 * instead of main, whose MPI calls are spelled MGEN_*, and whose computation is described by
 * MGEN_Comp(seconds). RDMA is MGEN_rdma_put / MGEN_rdma_get / MGEN_rdma_poll /
 * MGEN_acp_complete with NSIM-ACE's signatures (§3.2). Every rank runs MGEN_Main in its own
 * fiber; `mgen run -n N PROGRAM` runs it on a modelled machine and reports the predicted time.
 *
 * Buffers may be NULL: then only sizes travel and reductions are not computed. With real
 * buffers data really moves, at the simulated delivery time.
 *
 * MGEN_Init and MGEN_Finalize are optional (NSIM-ACE's sample program calls neither).
 * Errors follow MPI's default handler: an invalid call stops the whole run with a message
 * naming the rank and the call, and `mgen run` exits non-zero.
 */
#ifndef MGEN_MGEN_H
#define MGEN_MGEN_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- handles ---------------------------------------------------------------------- */
typedef int MGEN_Comm;
typedef int MGEN_Group;
typedef int MGEN_Datatype;
typedef int MGEN_Op;
typedef int MGEN_Request;
typedef int MGEN_acp_handle;

typedef struct MGEN_Status {
  int MGEN_SOURCE;
  int MGEN_TAG;
  int MGEN_ERROR;
  long long count_bytes; /* read it with MGEN_Get_count */
} MGEN_Status;

#define MGEN_COMM_NULL 0
#define MGEN_COMM_WORLD 1
#define MGEN_COMM_SELF 2
#define MGEN_GROUP_NULL 0
#define MGEN_GROUP_EMPTY 1
#define MGEN_REQUEST_NULL 0
#define MGEN_ANY_SOURCE (-1)
#define MGEN_ANY_TAG (-1)
#define MGEN_PROC_NULL (-2)
#define MGEN_UNDEFINED (-32766)
#ifdef __cplusplus
#define MGEN_STATUS_IGNORE (static_cast<MGEN_Status*>(nullptr))
#define MGEN_STATUSES_IGNORE (static_cast<MGEN_Status*>(nullptr))
#define MGEN_IN_PLACE (reinterpret_cast<void*>(static_cast<long>(-1)))
#else
#define MGEN_STATUS_IGNORE ((MGEN_Status*)0)
#define MGEN_STATUSES_IGNORE ((MGEN_Status*)0)
#define MGEN_IN_PLACE ((void*)-1)
#endif
#define MGEN_TAG_UB 1073741823

/* Return codes (MPI's values). */
#define MGEN_SUCCESS 0
#define MGEN_ERR_BUFFER 1
#define MGEN_ERR_COUNT 2
#define MGEN_ERR_TYPE 3
#define MGEN_ERR_TAG 4
#define MGEN_ERR_COMM 5
#define MGEN_ERR_RANK 6
#define MGEN_ERR_REQUEST 7
#define MGEN_ERR_ROOT 8
#define MGEN_ERR_GROUP 9
#define MGEN_ERR_OP 10
#define MGEN_ERR_TOPOLOGY 11
#define MGEN_ERR_DIMS 12
#define MGEN_ERR_ARG 13
#define MGEN_ERR_TRUNCATE 15
#define MGEN_ERR_OTHER 16
#define MGEN_ERR_INTERN 17

/* Comparison results (MGEN_Comm_compare later; used by groups). */
#define MGEN_IDENT 0
#define MGEN_CONGRUENT 1
#define MGEN_SIMILAR 2
#define MGEN_UNEQUAL 3

/* ---- predefined datatypes ----------------------------------------------------------- */
#define MGEN_DATATYPE_NULL 0
#define MGEN_CHAR 1
#define MGEN_SIGNED_CHAR 2
#define MGEN_UNSIGNED_CHAR 3
#define MGEN_BYTE 4
#define MGEN_SHORT 5
#define MGEN_UNSIGNED_SHORT 6
#define MGEN_INT 7
#define MGEN_UNSIGNED 8
#define MGEN_LONG 9
#define MGEN_UNSIGNED_LONG 10
#define MGEN_LONG_LONG 11
#define MGEN_UNSIGNED_LONG_LONG 12
#define MGEN_FLOAT 13
#define MGEN_DOUBLE 14
#define MGEN_LONG_DOUBLE 15
#define MGEN_C_BOOL 16
#define MGEN_INT8_T 17
#define MGEN_INT16_T 18
#define MGEN_INT32_T 19
#define MGEN_INT64_T 20
#define MGEN_UINT8_T 21
#define MGEN_UINT16_T 22
#define MGEN_UINT32_T 23
#define MGEN_UINT64_T 24
#define MGEN_FLOAT_INT 25       /* struct { float v; int i; } for MAXLOC/MINLOC */
#define MGEN_DOUBLE_INT 26      /* struct { double v; int i; } */
#define MGEN_LONG_INT 27        /* struct { long v; int i; } */
#define MGEN_2INT 28            /* struct { int v; int i; } */
#define MGEN_SHORT_INT 29       /* struct { short v; int i; } */
#define MGEN_LONG_DOUBLE_INT 30 /* struct { long double v; int i; } */

/* ---- predefined reduction operations ------------------------------------------------ */
#define MGEN_OP_NULL 0
#define MGEN_MAX 1
#define MGEN_MIN 2
#define MGEN_SUM 3
#define MGEN_PROD 4
#define MGEN_LAND 5
#define MGEN_BAND 6
#define MGEN_LOR 7
#define MGEN_BOR 8
#define MGEN_LXOR 9
#define MGEN_BXOR 10
#define MGEN_MINLOC 11
#define MGEN_MAXLOC 12
#define MGEN_REPLACE 13

/* ---- the program ------------------------------------------------------------------- */
/* Every MGEN program defines this; each rank calls it. */
int MGEN_Main(int argc, char** argv);

int MGEN_Init(int* argc, char*** argv);
int MGEN_Finalize(void);
int MGEN_Initialized(int* flag);
int MGEN_Abort(MGEN_Comm comm, int errorcode);
double MGEN_Wtime(void); /* simulated seconds */
double MGEN_Wtick(void);
/* Computation that takes `seconds` of simulated time on this rank. */
int MGEN_Comp(double seconds);
/* Computation given by its work: `flops` floating-point operations and `bytes` of memory
 * traffic, timed by the node's roofline, max(flops / node.flop_rate, bytes /
 * node.stream_bandwidth). */
int MGEN_Comp_work(double flops, double bytes);

/* ---- point to point ---------------------------------------------------------------- */
int MGEN_Send(const void* buf, int count, MGEN_Datatype type, int dest, int tag, MGEN_Comm comm);
int MGEN_Recv(void* buf, int count, MGEN_Datatype type, int source, int tag, MGEN_Comm comm, MGEN_Status* status);
int MGEN_Isend(const void* buf, int count, MGEN_Datatype type, int dest, int tag, MGEN_Comm comm,
               MGEN_Request* request);
int MGEN_Irecv(void* buf, int count, MGEN_Datatype type, int source, int tag, MGEN_Comm comm, MGEN_Request* request);
int MGEN_Sendrecv(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MGEN_Datatype recvtype, int source, int recvtag, MGEN_Comm comm, MGEN_Status* status);
int MGEN_Wait(MGEN_Request* request, MGEN_Status* status);
int MGEN_Waitall(int count, MGEN_Request requests[], MGEN_Status statuses[]);
int MGEN_Waitany(int count, MGEN_Request requests[], int* index, MGEN_Status* status);
int MGEN_Test(MGEN_Request* request, int* flag, MGEN_Status* status);
int MGEN_Testall(int count, MGEN_Request requests[], int* flag, MGEN_Status statuses[]);
int MGEN_Probe(int source, int tag, MGEN_Comm comm, MGEN_Status* status);
int MGEN_Iprobe(int source, int tag, MGEN_Comm comm, int* flag, MGEN_Status* status);
int MGEN_Get_count(const MGEN_Status* status, MGEN_Datatype type, int* count);
int MGEN_Type_size(MGEN_Datatype type, int* size);

/* ---- collectives ------------------------------------------------------------------- */
int MGEN_Barrier(MGEN_Comm comm);
int MGEN_Bcast(void* buf, int count, MGEN_Datatype type, int root, MGEN_Comm comm);
int MGEN_Reduce(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, int root,
                MGEN_Comm comm);
int MGEN_Allreduce(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm);
int MGEN_Gather(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                MGEN_Datatype recvtype, int root, MGEN_Comm comm);
int MGEN_Gatherv(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MGEN_Datatype recvtype, int root, MGEN_Comm comm);
int MGEN_Scatter(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                 MGEN_Datatype recvtype, int root, MGEN_Comm comm);
int MGEN_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MGEN_Datatype sendtype,
                  void* recvbuf, int recvcount, MGEN_Datatype recvtype, int root, MGEN_Comm comm);
int MGEN_Allgather(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                   MGEN_Datatype recvtype, MGEN_Comm comm);
int MGEN_Allgatherv(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MGEN_Datatype recvtype, MGEN_Comm comm);
int MGEN_Alltoall(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                  MGEN_Datatype recvtype, MGEN_Comm comm);
int MGEN_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MGEN_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MGEN_Datatype recvtype, MGEN_Comm comm);
int MGEN_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MGEN_Datatype type, MGEN_Op op,
                        MGEN_Comm comm);
int MGEN_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MGEN_Datatype type, MGEN_Op op,
                              MGEN_Comm comm);
int MGEN_Scan(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm);
int MGEN_Exscan(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm);

/* ---- communicators, groups, Cartesian topologies (PPT Table 1) ----------------------- */
int MGEN_Comm_rank(MGEN_Comm comm, int* rank);
int MGEN_Comm_size(MGEN_Comm comm, int* size);
int MGEN_Comm_split(MGEN_Comm comm, int color, int key, MGEN_Comm* newcomm);
int MGEN_Comm_dup(MGEN_Comm comm, MGEN_Comm* newcomm);
int MGEN_Comm_free(MGEN_Comm* comm);
int MGEN_Comm_group(MGEN_Comm comm, MGEN_Group* group);
int MGEN_Comm_create(MGEN_Comm comm, MGEN_Group group, MGEN_Comm* newcomm);
/* Intercommunicators: point-to-point between two disjoint groups (ranks name the remote
 * group); collectives on them are refused. */
int MGEN_Intercomm_create(MGEN_Comm local_comm, int local_leader, MGEN_Comm peer_comm, int remote_leader, int tag,
                          MGEN_Comm* newintercomm);
int MGEN_Intercomm_merge(MGEN_Comm intercomm, int high, MGEN_Comm* newintracomm);
int MGEN_Comm_test_inter(MGEN_Comm comm, int* flag);
int MGEN_Comm_remote_size(MGEN_Comm comm, int* size);
int MGEN_Comm_remote_group(MGEN_Comm comm, MGEN_Group* group);
int MGEN_Group_size(MGEN_Group group, int* size);
int MGEN_Group_rank(MGEN_Group group, int* rank);
int MGEN_Group_incl(MGEN_Group group, int n, const int ranks[], MGEN_Group* newgroup);
int MGEN_Group_excl(MGEN_Group group, int n, const int ranks[], MGEN_Group* newgroup);
int MGEN_Group_translate_ranks(MGEN_Group group1, int n, const int ranks1[], MGEN_Group group2, int ranks2[]);
int MGEN_Group_free(MGEN_Group* group);
int MGEN_Cart_create(MGEN_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MGEN_Comm* newcomm);
int MGEN_Cart_coords(MGEN_Comm comm, int rank, int maxdims, int coords[]);
int MGEN_Cart_rank(MGEN_Comm comm, const int coords[], int* rank);
int MGEN_Cart_shift(MGEN_Comm comm, int direction, int disp, int* rank_source, int* rank_dest);
int MGEN_Cart_get(MGEN_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int MGEN_Cartdim_get(MGEN_Comm comm, int* ndims);
int MGEN_Dims_create(int nnodes, int ndims, int dims[]);

/* ---- RDMA (NSIM-ACE §3.2; names after the ACP basic layer) --------------------------- */
/* Puts data_size bytes into the memory of dest_rank. Returns at once; the handle completes
 * when the target NIC's control packet, sent once all data is in the target's memory, is
 * back at the origin. */
MGEN_acp_handle MGEN_rdma_put(int dest_rank, int data_size, int tag);
/* Gets data_size bytes from the memory of src_rank; the handle completes when the data is in
 * this process's memory. */
MGEN_acp_handle MGEN_rdma_get(int src_rank, int data_size, int tag);
/* Waits until a put with this tag has completed its data transfer into this process's memory
 * (each call consumes one such put). */
void MGEN_rdma_poll(int tag);
/* Waits for the completion of the put or get behind `handle`. */
void MGEN_acp_complete(MGEN_acp_handle handle);

#ifdef __cplusplus
}
#endif

#endif /* MGEN_MGEN_H */
