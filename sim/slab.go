package sim

// Slab hands out records from blocks, for the records a simulation makes by
// the thousand and keeps to its end (the checker's requests, responses and
// submissions, the frames a pipe carries): one allocation per block instead
// of one per record costs at most a block's unused tail and spares the
// allocator and the collector most of their work. Blocks grow from 8 to 256
// records, so that a short seed does not pay for a long trace. A record
// lives as long as any record of its block does: what it points to should
// be let go when the record is done with, where that matters. The zero
// Slab is ready to use.
type Slab[T any] struct{ block []T }

// New returns a zeroed record.
func (s *Slab[T]) New() *T {
	if len(s.block) == cap(s.block) {
		s.block = make([]T, 0, min(256, max(8, 2*cap(s.block))))
	}
	s.block = s.block[:len(s.block)+1]
	return &s.block[len(s.block)-1]
}
