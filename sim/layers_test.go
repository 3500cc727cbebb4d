package sim_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/acpsim/acpsim/"

// layers is docs/design.md's picture of the house as data: every package of
// the module and its layer. A package imports only packages of its own layer
// or below. Layers 0-4 are the deterministic simulator and may not reach the
// real world (realWorld, directly or through a dependency); only layer 5 and
// the command may. A new package goes into this table, and into the
// picture, in the commit that adds it.
var layers = map[string]int{
	// 0: the vocabulary: trace format, wire types, rerun command lines.
	"traces": 0, "traces/shell": 0, "traces/golden": 0, "actors/acp": 0, "actors/acp/jsonscan": 0,
	// 1: the kernel and the judges of frames.
	"sim": 1, "properties": 1, "properties/conform": 1, "properties/conform/suite": 1, "properties/clientcheck": 1, "properties/hop": 1, "sim/design": 4, "sim/simtest": 4,
	// 2: the parts of a simulated world.
	"actors/agent": 2, "actors/agent/store": 2, "actors/agent/mutants": 2,
	"actors/client": 2, "actors/client/mutants": 2, "actors/proxy": 2,
	"netfault": 2, "sim/users": 2,
	// 3: a whole world, and many worlds side by side.
	"sim/world": 3, "sim/classes": 3, "sim/parallel": 3,
	// 4: drivers of worlds, and the drawing of a trace.
	"sim/explore": 4, "sim/shrink": 4, "sim/matrix": 4, "sim/mutation": 4,
	"sim/bench": 4, "traces/view": 4,
	// 5: the real world: processes, sockets, the wall clock, SQLite. Real
	// mode is a room of packages, one purpose each: child processes, the
	// real Agent, the Client's connections, the tap, the stdio proxy, the
	// drivers of check, check-client and conform, the fuzz target of the
	// Agent's stdin, and the helpers their tests share.
	"netfault/realmode/proc": 5, "netfault/realmode/serve": 5, "netfault/realmode/dial": 5,
	"netfault/realmode/tap": 5, "netfault/realmode/stdioproxy": 5, "netfault/realmode/check": 5,
	"netfault/realmode/checkclient": 5, "netfault/realmode/conformrun": 5,
	"netfault/realmode/stdinfuzz": 5, "netfault/realmode/internal/realtest": 5,
	"actors/agent/store/sqlitestore": 5,
	// 6: the command.
	"cmd/acpsim": 6,
}

// realWorld are the imports only layers 5 and 6 may have: sockets,
// processes, a database, failpoints that stop a process.
var realWorld = []string{
	"net", "net/http", "os/exec", "os/signal", "database/sql",
	"modernc.org/sqlite", "github.com/gorilla/websocket", "github.com/pingcap/failpoint",
}

// realDeps may not be reached even indirectly below layer 5. It is shorter
// than realWorld because github.com/google/uuid imports net (for a node id
// the simulator never asks for) and database/sql/driver (for Scan): neither
// opens a socket or a database.
var realDeps = []string{
	"net/http", "os/exec", "modernc.org/sqlite", "github.com/gorilla/websocket", "github.com/pingcap/failpoint",
}

const lowestReal = 5

type pkg struct {
	path    string
	imports []string
	deps    []string
}

// listModule runs go list once for both tests.
func listModule(t *testing.T) []pkg {
	t.Helper()
	pkgs, err := listOnce()
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

var listOnce = sync.OnceValues(func() ([]pkg, error) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		f := strings.Split(sc.Text(), "|")
		pkgs = append(pkgs, pkg{strings.TrimPrefix(f[0], module), strings.Fields(f[1]), strings.Fields(f[2])})
	}
	return pkgs, nil
})

func TestEveryPackageHasALayerAndImportsOnlyDownward(t *testing.T) {
	pkgs := listModule(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.path] = true
		layer, ok := layers[p.path]
		if !ok {
			t.Errorf("%s has no layer: add it to sim/layers_test.go and the picture in docs/design.md", p.path)
			continue
		}
		for _, imp := range p.imports {
			own, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if l, known := layers[own]; known && l > layer {
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only its own layer or below", p.path, layer, own, l)
			}
		}
	}
	for path := range layers {
		if !seen[path] {
			t.Errorf("layers names %s, which is not a package of the module", path)
		}
	}
}

// The simulator cannot race or wait on the world: no package below layer 5
// imports sockets, processes, SQLite or failpoints, or depends on HTTP,
// processes, SQLite, WebSocket or failpoints through another package.
func TestTheSimulatorImportsNothingReal(t *testing.T) {
	within := func(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }
	for _, p := range listModule(t) {
		if layers[p.path] >= lowestReal {
			continue
		}
		for _, imp := range p.imports {
			for _, r := range realWorld {
				if imp == r || r != "net" && within(imp, r) {
					t.Errorf("%s imports %s: the simulation packages import nothing real", p.path, imp)
				}
			}
		}
		for _, d := range p.deps {
			for _, r := range realDeps {
				if within(d, r) {
					t.Errorf("%s depends on %s: the simulation packages import nothing real", p.path, d)
				}
			}
			if own, ok := strings.CutPrefix(d, module); ok && layers[own] >= lowestReal {
				t.Errorf("%s depends on %s, a real-world package", p.path, own)
			}
		}
	}
}
