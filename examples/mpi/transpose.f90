! transpose — distributed matrix transpose with MPI_Alltoall, plus one uneven MPI_Alltoallv;
! the Fortran twin of transpose.c, with the same MPI calls and the same RESULT.
!
! The N x N integer matrix A(i, j) = i N + j (0-based), N = B p for p ranks and block size B
! (default 8), is stored by rows: rank r holds rows r B .. r B + B - 1, as a(j, row) so that
! the memory layout matches the C version. A transpose cuts the local rows into p B x B
! blocks, transposes each while packing, and swaps them with one MPI_Alltoall; the block from
! rank s lands in columns s B .. s B + B - 1. The matrix is transposed REPS times (default 4),
! each between MPI_Barriers, and checked after each. Then one MPI_Alltoallv sends
! mod(s + 2 d, 4) values from rank s to rank d (some counts are 0), each value naming its
! sender, receiver and position. A weighted checksum is summed to rank 0 with MPI_Reduce.
!
! Check: every rank compares every element it holds with its closed form, and rank 0 the
! checksum with one computed sequentially.
!
!   mpiexec -n 4 ./transpose_f [B [REPS]]
program transpose_main
  use, intrinsic :: iso_fortran_env, only: int64, error_unit
  use mpi
  use mpi_counts
  implicit none
  integer :: rank, nprocs, ierr, isize, lsize, b, reps, n, t, r, j, i, s, d, k, stotal, rtotal
  integer, allocatable :: a(:, :), buf(:), scount(:), sdisp(:), rcount(:), rdisp(:), sbuf(:), rbuf(:)
  integer(int64) :: local_sum, total, ref

  call count_call('MPI_Init', 0)
  call MPI_Init(ierr)
  call count_call('MPI_Comm_rank', 0)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call count_call('MPI_Comm_size', 0)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  isize = counted_type_size(MPI_INTEGER)
  lsize = counted_type_size(MPI_INTEGER8)
  b = int_arg(1, 8)
  reps = int_arg(2, 4)
  n = b * nprocs
  if (b < 1 .or. reps < 0 .or. int(n, int64)**2 > 2_int64**30) call fail('need 1 <= B, N^2 <= 2^30 and REPS >= 0')

  allocate (a(0:n - 1, 0:b - 1), buf(0:b * n - 1))
  do r = 0, b - 1
    do j = 0, n - 1
      a(j, r) = (rank * b + r) * n + j
    end do
  end do
  do t = 1, reps
    call count_call('MPI_Barrier', 0)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call transpose_all()
    call count_call('MPI_Barrier', 0)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    do r = 0, b - 1
      i = rank * b + r
      do j = 0, n - 1
        if (a(j, r) /= merge(j * n + i, i * n + j, mod(t, 2) == 1)) call fail('wrong element after a transpose')
      end do
    end do
  end do

  ! Uneven exchange: counts and displacements each way, then at most 3 values per peer.
  allocate (scount(0:nprocs - 1), sdisp(0:nprocs - 1), rcount(0:nprocs - 1), rdisp(0:nprocs - 1))
  allocate (sbuf(0:3 * nprocs - 1), rbuf(0:3 * nprocs - 1))
  stotal = 0
  rtotal = 0
  do d = 0, nprocs - 1
    scount(d) = uneven_count(rank, d)
    sdisp(d) = stotal
    rcount(d) = uneven_count(d, rank)
    rdisp(d) = rtotal
    do k = 0, scount(d) - 1
      sbuf(stotal + k) = uneven_value(rank, d, k)
    end do
    stotal = stotal + scount(d)
    rtotal = rtotal + rcount(d)
  end do
  call count_call('MPI_Alltoallv', stotal * isize)
  call MPI_Alltoallv(sbuf, scount, sdisp, MPI_INTEGER, rbuf, rcount, rdisp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do s = 0, nprocs - 1
    do k = 0, rcount(s) - 1
      if (rbuf(rdisp(s) + k) /= uneven_value(s, rank, k)) call fail('wrong value from the Alltoallv')
    end do
  end do

  ! Weighted so that a misplaced value changes the sum.
  local_sum = sum(int(rbuf(0:rtotal - 1), int64))
  do r = 0, b - 1
    do j = 0, n - 1
      local_sum = local_sum + int(a(j, r), int64) * (mod(rank * b + r + 2 * j, 7) + 1)
    end do
  end do
  call count_call('MPI_Reduce', lsize)
  call MPI_Reduce(local_sum, total, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    ref = 0
    do i = 0, n - 1
      do j = 0, n - 1
        ref = ref + int(merge(j * n + i, i * n + j, mod(reps, 2) == 1), int64) * (mod(i + 2 * j, 7) + 1)
      end do
    end do
    do s = 0, nprocs - 1
      do d = 0, nprocs - 1
        do k = 0, uneven_count(s, d) - 1
          ref = ref + uneven_value(s, d, k)
        end do
      end do
    end do
    if (total /= ref) call fail('checksum differs from the sequential one')
    write (*, '(A,I0)') 'RESULT transpose ', total
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

  ! Transposes the distributed matrix held in a, using buf for the packed blocks.
  subroutine transpose_all()
    integer :: s, d, c, r
    do d = 0, nprocs - 1
      do c = 0, b - 1
        do r = 0, b - 1
          buf((d * b + c) * b + r) = a(d * b + c, r)
        end do
      end do
    end do
    call count_call('MPI_Alltoall', b * b * isize)
    call MPI_Alltoall(buf, b * b, MPI_INTEGER, a, b * b, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    ! Block s arrived as elements s b b ... of a with its rows already transposed; spread it
    ! into columns.
    buf = reshape(a, [b * n])
    do s = 0, nprocs - 1
      do c = 0, b - 1
        do r = 0, b - 1
          a(s * b + r, c) = buf((s * b + c) * b + r)
        end do
      end do
    end do
  end subroutine transpose_all

  ! Values from rank s to rank d in the Alltoallv.
  integer function uneven_count(s, d)
    integer, intent(in) :: s, d
    uneven_count = mod(s + 2 * d, 4)
  end function uneven_count

  integer function uneven_value(s, d, k)
    integer, intent(in) :: s, d, k
    uneven_value = s * 10000 + d * 100 + k
  end function uneven_value

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write (error_unit, '(A,I0,A,A)') 'transpose: rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail

end program transpose_main
