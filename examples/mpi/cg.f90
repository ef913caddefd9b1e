! cg — conjugate gradients (Hestenes & Stiefel 1952) on a 1-D decomposed tridiagonal system;
! the Fortran twin of cg.c, with the same MPI calls and the same RESULT.
!
! Solves A x = b with A = tridiag(-1, 4, -1) of order N (default 1000) and b = A x* for
! x*_i = (i mod 17) / 4 (i from 0), the vectors split into contiguous blocks. Rank 0 reads N
! and the iteration count (default 25) and sends them with one MPI_Bcast. Each iteration
! exchanges one ghost value of p with each neighbour by two MPI_Sendrecv (MPI_PROC_NULL at the
! ends, whose ghosts stay 0), then takes two dot products with MPI_Allreduce; one more
! Allreduce starts the loop. A fixed-point checksum of x is summed to rank 0 with MPI_Reduce.
!
! Check: every rank repeats the solve sequentially and compares its block. A is well
! conditioned (eigenvalues in (2, 6)), so 25 iterations reach x* to rounding and RESULT
! equals the closed-form checksum at every rank count.
!
!   mpiexec -n 4 ./cg_f [N [iterations]]
program cg_main
  use, intrinsic :: iso_fortran_env, only: int64, error_unit
  use mpi
  use mpi_counts
  implicit none
  double precision, parameter :: scale = 1d6 ! checksum resolution
  integer :: rank, nprocs, ierr, dsize, isize, lsize, left, right, n, lo, m, i
  integer :: params(2)
  double precision, allocatable :: x(:), ref(:)
  integer(int64) :: local_sum, total, ref_sum

  call count_call('MPI_Init', 0)
  call MPI_Init(ierr)
  call count_call('MPI_Comm_rank', 0)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call count_call('MPI_Comm_size', 0)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  dsize = counted_type_size(MPI_DOUBLE_PRECISION)
  isize = counted_type_size(MPI_INTEGER)
  lsize = counted_type_size(MPI_INTEGER8)

  params = [1000, 25] ! N, iterations
  if (rank == 0) params = [int_arg(1, params(1)), int_arg(2, params(2))]
  call count_call('MPI_Bcast', 2 * isize)
  call MPI_Bcast(params, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  n = params(1)
  if (n < nprocs .or. params(2) < 0) then
    if (rank == 0) write (error_unit, '(A)') 'cg: need N >= the number of ranks and iterations >= 0'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  lo = int(int(rank, int64) * n / nprocs)
  m = int(int(rank + 1, int64) * n / nprocs) - lo
  left = merge(rank - 1, MPI_PROC_NULL, rank > 0)
  right = merge(rank + 1, MPI_PROC_NULL, rank < nprocs - 1)

  allocate (x(m), ref(n))
  call cg(x, lo, n, params(2), .true.)
  call cg(ref, 0, n, params(2), .false.)

  do i = 1, m
    if (abs(x(i) - ref(lo + i)) > 1d-9 * (1 + abs(ref(lo + i)))) then
      write (error_unit, '(A,I0,A,I0,A,ES24.17,A,ES24.17)') 'cg: rank ', rank, ': x(', lo + i - 1, ') = ', &
        x(i), ', sequentially ', ref(lo + i)
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  local_sum = sum(nint(x * scale, int64))
  call count_call('MPI_Reduce', lsize)
  call MPI_Reduce(local_sum, total, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    ref_sum = sum(nint(ref * scale, int64))
    if (abs(total - ref_sum) > n) then ! each term may round the other way
      write (error_unit, '(A,I0,A,I0)') 'cg: checksum ', total, ', sequentially ', ref_sum
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    write (*, '(A,I0)') 'RESULT cg ', total
    write (*, '(A)') 'OK'
  end if
  call counted_finalize(rank)

contains

  ! Command-line argument k as an integer, or dflt if absent.
  integer function int_arg(k, dflt)
    integer, intent(in) :: k, dflt
    character(len=32) :: arg
    int_arg = dflt
    if (command_argument_count() >= k) then
      call get_command_argument(k, arg)
      read (arg, *) int_arg
    end if
  end function int_arg

  double precision function exact(i)
    integer, intent(in) :: i
    exact = mod(i, 17) / 4d0
  end function exact

  ! Fills p's ghosts p(0) and p(m + 1) from the neighbours' edge values.
  subroutine exchange(p)
    double precision, intent(inout) :: p(0:)
    integer :: m
    m = size(p) - 2
    call count_call('MPI_Sendrecv', dsize)
    call MPI_Sendrecv(p(1), 1, MPI_DOUBLE_PRECISION, left, 0, p(m + 1), 1, MPI_DOUBLE_PRECISION, right, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call count_call('MPI_Sendrecv', dsize)
    call MPI_Sendrecv(p(m), 1, MPI_DOUBLE_PRECISION, right, 1, p(0), 1, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end subroutine exchange

  double precision function dot(a, b, parallel)
    double precision, intent(in) :: a(:), b(:)
    logical, intent(in) :: parallel
    double precision :: local
    integer :: i
    local = 0
    do i = 1, size(a)
      local = local + a(i) * b(i)
    end do
    dot = local
    if (parallel) then
      call count_call('MPI_Allreduce', dsize)
      call MPI_Allreduce(local, dot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    end if
  end function dot

  ! iters CG steps from x = 0 on rows lo .. lo + size(x) - 1 (0-based) of n; alone
  ! (parallel false) it makes no MPI calls and x must hold all n.
  subroutine cg(x, lo, n, iters, parallel)
    double precision, intent(out) :: x(:)
    integer, intent(in) :: lo, n, iters
    logical, intent(in) :: parallel
    double precision :: b(size(x)), r(size(x)), q(size(x)), p(0:size(x) + 1)
    double precision :: rr, rr_new, pq, alpha, beta
    integer :: i, g, m, it
    m = size(x)
    do i = 1, m
      g = lo + i - 1
      b(i) = 4 * exact(g)
      if (g > 0) b(i) = b(i) - exact(g - 1)
      if (g < n - 1) b(i) = b(i) - exact(g + 1)
    end do
    x = 0
    r = b
    p = 0
    p(1:m) = b
    rr = dot(r, r, parallel)
    do it = 1, iters
      if (parallel) call exchange(p)
      do i = 1, m
        q(i) = 4 * p(i) - p(i - 1) - p(i + 1)
      end do
      pq = dot(p(1:m), q, parallel)
      alpha = 0 ! once r is exactly 0
      if (pq /= 0) alpha = rr / pq
      x = x + alpha * p(1:m)
      r = r - alpha * q
      rr_new = dot(r, r, parallel)
      beta = 0
      if (rr /= 0) beta = rr_new / rr
      p(1:m) = r + beta * p(1:m)
      rr = rr_new
    end do
  end subroutine cg

end program cg_main
