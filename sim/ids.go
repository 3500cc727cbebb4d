package sim

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/google/uuid"
)

// IDs is the seeded stream for everything that is not a fault: session and
// message ids, idempotency keys, prompt texts, tie-breaks. Keeping it apart
// from the Chooser means a code change that draws one more id does not shift
// which faults a seed produces.
type IDs struct {
	rng   *rand.Rand
	buf   [8]byte
	n     int
	names *Names // where UUID mints, nil for none
}

// NewIDs returns the id stream of seed.
func NewIDs(seed uint64) *IDs {
	return &IDs{rng: rand.New(rand.NewPCG(seed, 0x696473))} // "ids"
}

// NewNamedIDs returns a stream of seed of its own for name (a submission):
// what it draws does not depend on how much any other stream drew, so
// leaving one submission out of a scenario does not change another's key.
func NewNamedIDs(seed uint64, name string) *IDs {
	h := uint64(0xcbf29ce484222325) // FNV-1a
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 0x100000001b3
	}
	return &IDs{rng: rand.New(rand.NewPCG(seed, h))}
}

// NamedDraws returns draws of seed for named decisions: each name draws
// from its own stream (NewNamedIDs), so a decision added later shifts no
// draw of the ones before it. A name draws its first value each time: a
// decision is drawn once per name.
func NamedDraws(seed uint64) func(name string, n int) int {
	return func(name string, n int) int { return NewNamedIDs(seed, name).IntN(n) }
}

// SubmissionDraws gives each submission a stream of seed of its own for its
// key (client.Env.Sub): leaving one submission out keeps the others' keys.
// Its UUIDs are minted into names (nil for none), as MintInto says.
func SubmissionDraws(seed uint64, names *Names) func(sub string) (newID func() string, intN func(n int) int) {
	return func(sub string) (func() string, func(int) int) {
		ids := NewNamedIDs(seed, sub).MintInto(names)
		return ids.UUID, ids.IntN
	}
}

// MintInto has UUID register every id it makes in names (nil for none), so
// that it is the arena's string with a handle; the ids drawn are the same.
// It returns s.
func (s *IDs) MintInto(names *Names) *IDs {
	s.names = names
	return s
}

// Read fills p from the stream; it never fails. It lets uuid.NewRandomFromReader
// draw from the seed.
func (s *IDs) Read(p []byte) (int, error) {
	for i := range p {
		if s.n == 0 {
			binary.LittleEndian.PutUint64(s.buf[:], s.rng.Uint64())
			s.n = 8
		}
		p[i] = s.buf[8-s.n]
		s.n--
	}
	return len(p), nil
}

// UUID returns a random (version 4) UUID from the stream.
func (s *IDs) UUID() string {
	// uuid.NewRandomFromReader's bytes, read without an interface (which
	// put the UUID on the heap): 16 bytes, then the version and variant.
	var u uuid.UUID
	s.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	if s.names != nil {
		id, _ := s.names.MintUUID(u)
		return id
	}
	return u.String()
}

// IntN returns a value in [0, n) from the stream.
func (s *IDs) IntN(n int) int { return s.rng.IntN(n) }

// Float64 returns a value in [0, 1) from the stream.
func (s *IDs) Float64() float64 { return s.rng.Float64() }
