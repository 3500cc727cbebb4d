package store_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/acpsim/acpsim/actors/agent/store"
)

// A crash that loses the unsynced batches takes them back one by one
// (Disk.revert) unless one deleted or forgot; either way the disk must read
// exactly as one that only ever had the synced batches, and every session
// whose messages changed must carry a new Version.
func TestDiskCrashTakesBackExactlyTheUnsyncedBatches(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		d, want := store.NewDisk(), store.NewDisk()
		var pending []store.Batch
		n := 0
		for step := 0; step < 40; step++ {
			var b store.Batch
			sess := fmt.Sprintf("s%d", r.IntN(3))
			switch r.IntN(6) {
			case 0, 1, 2:
				n++
				id := fmt.Sprintf("m%d", n)
				b = store.Batch{Sessions: []store.Session{{ID: sess, Title: id}}, Messages: []store.Message{user(sess, id, "t")}}
				if r.IntN(2) == 0 {
					b.Bindings = []store.Binding{bind(sess, id, id)}
				}
			case 3:
				b = store.Batch{Sessions: []store.Session{{ID: sess, Cwd: fmt.Sprint(step)}}}
			case 4:
				if msgs := d.Messages(sess); len(msgs) > 0 {
					b = store.Batch{Forget: msgs[:1]}
				}
			case 5:
				if r.IntN(4) == 0 {
					b = store.Batch{Delete: []string{sess}}
				}
			}
			if d.Commit(b) != nil {
				continue
			}
			pending = append(pending, b)
			switch r.IntN(5) {
			case 0:
				d.Sync()
				for _, p := range pending {
					if err := want.Commit(p); err != nil {
						t.Fatal(err)
					}
				}
				pending = nil
			case 1:
				before, stamp := map[string][]store.Message{}, map[string]uint64{}
				for _, s := range []string{"s0", "s1", "s2"} {
					before[s], stamp[s] = d.Messages(s), d.Version(s)
				}
				d.Crash(true)
				pending = nil
				for _, s := range []string{"s0", "s1", "s2"} {
					if !reflect.DeepEqual(d.Messages(s), want.Messages(s)) && len(d.Messages(s))+len(want.Messages(s)) > 0 {
						t.Fatalf("seed %d step %d: %s holds %v after the crash, want %v", seed, step, s, d.Messages(s), want.Messages(s))
					}
				}
				if !reflect.DeepEqual(d.Sessions(), want.Sessions()) && len(d.Sessions())+len(want.Sessions()) > 0 {
					t.Fatalf("seed %d step %d: sessions %v after the crash, want %v", seed, step, d.Sessions(), want.Sessions())
				}
				for _, s := range []string{"s0", "s1", "s2"} {
					for _, m := range want.Messages(s) {
						if _, ok := d.Binding(s, m.ID); ok != hasBinding(want, s, m.ID) {
							t.Fatalf("seed %d step %d: binding %s/%s present %v, want %v", seed, step, s, m.ID, ok, !ok)
						}
					}
				}
				for _, s := range []string{"s0", "s1", "s2"} {
					if len(before[s]) != len(d.Messages(s)) && d.Version(s) == stamp[s] {
						t.Fatalf("seed %d step %d: %s lost messages in the crash but kept Version %d", seed, step, s, stamp[s])
					}
				}
			}
		}
	}
}

func hasBinding(d *store.Disk, s, key string) bool {
	_, ok := d.Binding(s, key)
	return ok
}
