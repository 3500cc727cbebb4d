package sim_test

import (
	"bytes"
	"testing"

	"github.com/acpsim/acpsim/sim"
	"github.com/google/uuid"
)

func uuids(seed uint64, n int) []string {
	ids := sim.NewIDs(seed)
	out := make([]string, n)
	for i := range out {
		out[i] = ids.UUID()
	}
	return out
}

func TestIDsUUIDsAreV4(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range uuids(1, 200) {
		u, err := uuid.Parse(s)
		if err != nil {
			t.Fatalf("%q is not a UUID: %v", s, err)
		}
		if u.String() != s {
			t.Errorf("%q is not in canonical form (%s)", s, u)
		}
		if u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Errorf("%s: version %d, variant %v; want 4, RFC4122", s, u.Version(), u.Variant())
		}
		if seen[s] {
			t.Errorf("%s drawn twice", s)
		}
		seen[s] = true
	}
}

func TestIDsRepeatForASeed(t *testing.T) {
	a, b := uuids(77, 50), uuids(77, 50)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("id %d of seed 77: %s then %s", i, a[i], b[i])
		}
	}
	c := uuids(78, 50)
	for i := range a {
		if a[i] == c[i] {
			t.Errorf("id %d is %s for seeds 77 and 78", i, a[i])
		}
	}
	x, y := sim.NewIDs(5), sim.NewIDs(5)
	for range 100 {
		if p, q := x.IntN(1000), y.IntN(1000); p != q {
			t.Fatalf("IntN of seed 5: %d then %d", p, q)
		}
		if p, q := x.Float64(), y.Float64(); p != q {
			t.Fatalf("Float64 of seed 5: %v then %v", p, q)
		}
	}
}

func TestIDsIntNAndFloat64InRange(t *testing.T) {
	ids := sim.NewIDs(3)
	for range 1000 {
		if v := ids.IntN(7); v < 0 || v >= 7 {
			t.Fatalf("IntN(7) = %d", v)
		}
		if v := ids.Float64(); v < 0 || v >= 1 {
			t.Fatalf("Float64() = %v", v)
		}
	}
}

func TestIDsReadFillsAnyLength(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 16, 100} {
		p := make([]byte, n)
		got, err := sim.NewIDs(4).Read(p)
		if got != n || err != nil {
			t.Errorf("Read(%d bytes) = %d, %v; want %d, nil", n, got, err, n)
		}
		if n >= 8 && bytes.Count(p, []byte{0}) == n {
			t.Errorf("Read(%d bytes) left them all zero", n)
		}
	}
	// Reads of odd sizes continue the stream exactly where the last stopped:
	// no byte is skipped or repeated.
	whole := make([]byte, 3+5+13+1+10)
	sim.NewIDs(4).Read(whole)
	ids := sim.NewIDs(4)
	var pieces []byte
	for _, n := range []int{3, 5, 13, 1, 10} {
		p := make([]byte, n)
		ids.Read(p)
		pieces = append(pieces, p...)
	}
	if !bytes.Equal(pieces, whole) {
		t.Errorf("pieces %x\nwant   %x", pieces, whole)
	}
}

// UUID draws what uuid.NewRandomFromReader draws from the same stream, into
// a register or not: the ids of every pinned trace.
func TestIDsUUIDIsTheUUIDPackagesDraw(t *testing.T) {
	ref, plain, minted := sim.NewIDs(4), sim.NewIDs(4), sim.NewIDs(4).MintInto(sim.NewNames())
	for range 500 {
		want := uuid.Must(uuid.NewRandomFromReader(ref)).String()
		if got := plain.UUID(); got != want {
			t.Fatalf("UUID %s, uuid's draw %s", got, want)
		}
		if got := minted.UUID(); got != want {
			t.Fatalf("UUID minted %s, uuid's draw %s", got, want)
		}
	}
}
