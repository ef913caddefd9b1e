! mpi_counts — a program's own tally of the MPI calls it makes, so that a PMPI tracer's record
! of the same run can be checked against it; the Fortran twin of mpi_counts.h.
!
! Call count_call('MPI_Xxx', bytes) next to every MPI call, with the C name and bytes as the
! README defines them (primary count times datatype size, the send part for Sendrecv,
! Alltoall and Alltoallv; 0 for calls that move no data). counted_finalize counts
! MPI_Finalize, writes $MPI_COUNTS_DIR/counts.<rank> (no MPI) with one "name calls bytes" line
! per function, sorted by name, then finalizes.
module mpi_counts
  use, intrinsic :: iso_fortran_env, only: int64, error_unit
  use mpi
  implicit none
  private
  public :: count_call, counted_type_size, counted_finalize

  integer, parameter :: max_names = 64, name_len = 32
  ! Kept sorted by name (llt: ASCII, as C's strcmp), so the file needs no sort.
  character(len=name_len) :: names(max_names)
  integer(int64) :: calls(max_names) = 0, bytes(max_names) = 0
  integer :: n_names = 0

contains

  subroutine count_call(name, nbytes)
    character(len=*), intent(in) :: name
    integer, intent(in) :: nbytes
    integer :: i
    logical :: found
    i = 1
    do while (i <= n_names)
      if (.not. llt(names(i), name)) exit
      i = i + 1
    end do
    found = .false.
    if (i <= n_names) found = names(i) == name
    if (.not. found) then
      if (n_names == max_names) error stop 'mpi_counts: too many MPI functions'
      names(i + 1:n_names + 1) = names(i:n_names)
      calls(i + 1:n_names + 1) = calls(i:n_names)
      bytes(i + 1:n_names + 1) = bytes(i:n_names)
      names(i) = name
      calls(i) = 0
      bytes(i) = 0
      n_names = n_names + 1
    end if
    calls(i) = calls(i) + 1
    bytes(i) = bytes(i) + nbytes
  end subroutine count_call

  ! Byte size of a datatype; the MPI_Type_size call is counted like any other.
  integer function counted_type_size(datatype) result(type_bytes)
    integer, intent(in) :: datatype
    integer :: ierr
    call count_call('MPI_Type_size', 0)
    call MPI_Type_size(datatype, type_bytes, ierr)
  end function counted_type_size

  subroutine counted_finalize(world_rank)
    integer, intent(in) :: world_rank
    character(len=4096) :: dir, path
    integer :: length, status, unit, i, ierr
    call count_call('MPI_Finalize', 0)
    call get_environment_variable('MPI_COUNTS_DIR', dir, length, status)
    if (status == 0 .and. length > 0) then
      write (path, '(A,"/counts.",I0)') trim(dir), world_rank
      open (newunit=unit, file=trim(path), status='replace', action='write', iostat=status)
      if (status /= 0) then
        write (error_unit, '(A,A)') 'mpi_counts: cannot write ', trim(path)
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
      do i = 1, n_names
        write (unit, '(A," ",I0," ",I0)') trim(names(i)), calls(i), bytes(i)
      end do
      close (unit)
    end if
    call MPI_Finalize(ierr)
  end subroutine counted_finalize

end module mpi_counts
