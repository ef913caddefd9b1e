! halo — 2-D Jacobi iteration with a one-cell halo exchange on a Cartesian process grid; the
! Fortran twin of halo.c, with the same MPI calls and the same RESULT.
!
! An N x N grid (default 48, 50 iterations) with fixed boundary values (1 on the top edge, 0.5
! on the left, 0 elsewhere) is split into blocks over the process grid from MPI_Dims_create and
! MPI_Cart_create. Each iteration swaps halos with the four neighbours from MPI_Cart_shift
! (4 MPI_Irecv + 4 MPI_Isend + MPI_Waitall; MPI_PROC_NULL on the outer edges, where the ghost
! cells keep the boundary values), then does one Jacobi sweep. Every res_every iterations the
! largest change is combined with MPI_Allreduce(MPI_MAX); at the end a fixed-point checksum is
! summed to rank 0 with MPI_Reduce.
!
! Check: every rank repeats the whole computation sequentially and compares its block bit for
! bit, and the residual and checksum too.
!
!   mpiexec -n 4 ./halo_f [N [iterations]]
program halo
  use, intrinsic :: iso_fortran_env, only: int64, error_unit
  use mpi
  use mpi_counts
  implicit none
  integer, parameter :: res_every = 10, up = 0, down = 1, left = 2, right = 3
  double precision, parameter :: scale = 1d9 ! checksum resolution
  integer :: rank, nprocs, ierr, dsize, lsize, n, iters, cart, it, d, i0, ni, j0, nj, cur
  integer :: dims(2), coords(2), nb(0:3), length(0:3), req(8)
  logical :: periods(2)
  double precision, allocatable :: u(:, :, :), g(:, :, :), sbuf(:, :), rbuf(:, :)
  double precision :: local, res, ref_res, r
  integer(int64) :: local_sum, total

  call count_call('MPI_Init', 0)
  call MPI_Init(ierr)
  call count_call('MPI_Comm_rank', 0)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call count_call('MPI_Comm_size', 0)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  dsize = counted_type_size(MPI_DOUBLE_PRECISION)
  lsize = counted_type_size(MPI_INTEGER8)
  n = int_arg(1, 48)
  iters = int_arg(2, 50)

  dims = 0
  periods = .false.
  call count_call('MPI_Dims_create', 0)
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  if (n < dims(1) .or. n < dims(2) .or. iters < 1) call fail('need N >= the process grid and iterations >= 1')
  ! No reorder: ranks in cart are the world ranks.
  call count_call('MPI_Cart_create', 0)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call count_call('MPI_Cart_coords', 0)
  call MPI_Cart_coords(cart, rank, 2, coords, ierr)
  call count_call('MPI_Cart_shift', 0)
  call MPI_Cart_shift(cart, 0, 1, nb(up), nb(down), ierr)
  call count_call('MPI_Cart_shift', 0)
  call MPI_Cart_shift(cart, 1, 1, nb(left), nb(right), ierr)

  ! Block rows i0 .. i0 + ni - 1 and columns j0 .. j0 + nj - 1 (0-based); sizes differ by <= 1.
  i0 = coords(1) * n / dims(1)
  ni = (coords(1) + 1) * n / dims(1) - i0
  j0 = coords(2) * n / dims(2)
  nj = (coords(2) + 1) * n / dims(2) - j0
  length = [nj, nj, ni, ni]
  allocate (u(0:ni + 1, 0:nj + 1, 2))
  call init_grid(u, i0, j0)
  allocate (sbuf(max(ni, nj), 0:3), rbuf(max(ni, nj), 0:3))
  cur = 1
  res = 0

  do it = 1, iters
    ! A message sent towards direction d carries tag d and arrives from direction ieor(d, 1).
    do d = 0, 3
      call count_call('MPI_Irecv', length(d) * dsize)
      call MPI_Irecv(rbuf(:, d), length(d), MPI_DOUBLE_PRECISION, nb(d), ieor(d, 1), cart, req(d + 1), ierr)
    end do
    sbuf(1:nj, up) = u(1, 1:nj, cur)
    sbuf(1:nj, down) = u(ni, 1:nj, cur)
    sbuf(1:ni, left) = u(1:ni, 1, cur)
    sbuf(1:ni, right) = u(1:ni, nj, cur)
    do d = 0, 3
      call count_call('MPI_Isend', length(d) * dsize)
      call MPI_Isend(sbuf(:, d), length(d), MPI_DOUBLE_PRECISION, nb(d), d, cart, req(d + 5), ierr)
    end do
    call count_call('MPI_Waitall', 0)
    call MPI_Waitall(8, req, MPI_STATUSES_IGNORE, ierr)
    if (nb(up) /= MPI_PROC_NULL) u(0, 1:nj, cur) = rbuf(1:nj, up)
    if (nb(down) /= MPI_PROC_NULL) u(ni + 1, 1:nj, cur) = rbuf(1:nj, down)
    if (nb(left) /= MPI_PROC_NULL) u(1:ni, 0, cur) = rbuf(1:ni, left)
    if (nb(right) /= MPI_PROC_NULL) u(1:ni, nj + 1, cur) = rbuf(1:ni, right)

    local = sweep(u(:, :, cur), u(:, :, 3 - cur))
    if (mod(it, res_every) == 0) then
      call count_call('MPI_Allreduce', dsize)
      call MPI_Allreduce(local, res, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart, ierr)
    end if
    cur = 3 - cur
  end do

  local_sum = checksum(u(:, :, cur))
  call count_call('MPI_Reduce', lsize)
  call MPI_Reduce(local_sum, total, 1, MPI_INTEGER8, MPI_SUM, 0, cart, ierr)

  ! The sequential reference, on the whole grid.
  allocate (g(0:n + 1, 0:n + 1, 2))
  call init_grid(g, 0, 0)
  ref_res = 0
  do it = 1, iters
    r = sweep(g(:, :, 1 + mod(it - 1, 2)), g(:, :, 1 + mod(it, 2)))
    if (mod(it, res_every) == 0) ref_res = r
  end do
  if (any(u(1:ni, 1:nj, cur) /= g(i0 + 1:i0 + ni, j0 + 1:j0 + nj, cur))) &
    call fail('block differs from the sequential grid')
  if (res /= ref_res) call fail('residual differs from the sequential one')
  if (rank == 0) then
    if (total /= checksum(g(:, :, cur))) call fail('checksum differs from the sequential one')
    write (*, '(A,I0)') 'RESULT halo ', total
    write (*, '(A)') 'OK'
  end if

  call count_call('MPI_Comm_free', 0)
  call MPI_Comm_free(cart, ierr)
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

  ! Value outside the domain at 0-based global (i, j); only the edges are ever read.
  double precision function boundary(i, j)
    integer, intent(in) :: i, j
    boundary = 0
    if (j < 0) boundary = 0.5d0
    if (i < 0) boundary = 1
  end function boundary

  ! Both copies of the block at global (i0, j0), with ghosts: interior zero, ghosts at their
  ! boundary values.
  subroutine init_grid(grid, i0, j0)
    double precision, intent(out) :: grid(0:, 0:, :)
    integer, intent(in) :: i0, j0
    integer :: i, j
    do j = 0, ubound(grid, 2)
      do i = 0, ubound(grid, 1)
        grid(i, j, :) = boundary(i0 + i - 1, j0 + j - 1)
      end do
    end do
    grid(1:ubound(grid, 1) - 1, 1:ubound(grid, 2) - 1, :) = 0
  end subroutine init_grid

  ! One Jacobi sweep over the interior of u into v, in halo.c's operand order; returns the
  ! largest change.
  double precision function sweep(u, v)
    double precision, intent(in) :: u(0:, 0:)
    double precision, intent(inout) :: v(0:, 0:)
    integer :: i, j
    sweep = 0
    do j = 1, ubound(u, 2) - 1
      do i = 1, ubound(u, 1) - 1
        v(i, j) = 0.25d0 * ((u(i - 1, j) + u(i + 1, j)) + (u(i, j - 1) + u(i, j + 1)))
        sweep = max(sweep, abs(v(i, j) - u(i, j)))
      end do
    end do
  end function sweep

  integer(int64) function checksum(u)
    double precision, intent(in) :: u(0:, 0:)
    checksum = sum(nint(u(1:ubound(u, 1) - 1, 1:ubound(u, 2) - 1) * scale, int64))
  end function checksum

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write (error_unit, '(A,I0,A,A)') 'halo: rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail

end program halo
