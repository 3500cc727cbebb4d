package properties

// slab hands out records from blocks: the checker keeps every request,
// response and submission it reads until Finish, so one allocation per block
// instead of one per record costs at most a block's unused tail and spares
// the allocator and the collector most of their work on a long trace. Blocks
// grow from 8 to 256 records, so that a short seed's checker does not pay
// for a long trace's.
type slab[T any] struct{ block []T }

func (s *slab[T]) new() *T {
	if len(s.block) == cap(s.block) {
		s.block = make([]T, 0, min(256, max(8, 2*cap(s.block))))
	}
	s.block = s.block[:len(s.block)+1]
	return &s.block[len(s.block)-1]
}
