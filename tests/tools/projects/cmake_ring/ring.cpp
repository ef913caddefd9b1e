// The ring in C++ with iostreams: std::cout is an object libstdc++ constructs at start-up, which
// a program linked as a position-independent executable reaches through a copy relocation.
#include <mpi.h>

#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int token = rank * 10 + size, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  std::ostringstream line;
  line << "c++ rank " << rank << " of " << size << " got " << got << "\n";
  std::cout << line.str() << std::flush;
  MPI_Finalize();
  return 0;
}
