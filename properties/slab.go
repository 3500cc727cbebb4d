package properties

// slab hands out records from blocks of slabBlock: the checker keeps every
// request, response and submission it reads until Finish, so one allocation
// per block instead of one per record costs no memory and spares the
// allocator and the collector most of their work on a long trace.
type slab[T any] struct{ block []T }

const slabBlock = 256

func (s *slab[T]) new() *T {
	if len(s.block) == cap(s.block) {
		s.block = make([]T, 0, slabBlock)
	}
	s.block = s.block[:len(s.block)+1]
	return &s.block[len(s.block)-1]
}
