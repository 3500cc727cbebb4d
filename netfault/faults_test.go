package netfault_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/netfault"
)

func TestFaultsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range netfault.Faults {
		if f.Options < 2 {
			t.Errorf("%s: %d options; a fault needs option 0 (none) and at least one fault", f.Kind, f.Options)
		}
		if strings.TrimSpace(f.Doc) == "" {
			t.Errorf("%s: no Doc", f.Kind)
		}
		if f.Rate < 0 || f.Rate > 1 {
			t.Errorf("%s: default rate %v outside [0,1]", f.Kind, f.Rate)
		}
		if seen[f.Kind] {
			t.Errorf("%s listed twice", f.Kind)
		}
		seen[f.Kind] = true
	}
	for _, k := range []string{netfault.Delay, netfault.Cut, netfault.Kill, netfault.LoseUnsynced, netfault.Reject} {
		if !seen[k] {
			t.Errorf("kind %s missing from Faults", k)
		}
	}
	for _, f := range netfault.Faults {
		if f.Kind == netfault.Delay && f.Options != len(netfault.DelaySteps) {
			t.Errorf("delay has %d options but %d DelaySteps", f.Options, len(netfault.DelaySteps))
		}
	}
	if netfault.DelaySteps[0] != 0 {
		t.Errorf("delay option 0 is %v, want no delay", netfault.DelaySteps[0])
	}
}

func TestKindsSorted(t *testing.T) {
	kinds := netfault.Kinds()
	if !sort.StringsAreSorted(kinds) {
		t.Errorf("Kinds() = %v, not sorted", kinds)
	}
	if len(kinds) != len(netfault.Faults) {
		t.Errorf("Kinds() = %v, want one per fault (%d)", kinds, len(netfault.Faults))
	}
}

func TestDefaultRates(t *testing.T) {
	rates := netfault.DefaultRates()
	if len(rates) != len(netfault.Faults) {
		t.Errorf("DefaultRates has %d kinds, want %d", len(rates), len(netfault.Faults))
	}
	for _, f := range netfault.Faults {
		if r, ok := rates[f.Kind]; !ok || r != f.Rate {
			t.Errorf("DefaultRates[%s] = %v, %v; want %v", f.Kind, r, ok, f.Rate)
		}
	}
}

func TestParseRates(t *testing.T) {
	base := netfault.DefaultRates()
	with := func(over map[string]float64) map[string]float64 {
		out := netfault.DefaultRates()
		for k, v := range over {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		spec string
		want map[string]float64
	}{
		{"", base},
		{"   ", base},
		{"kill=0.5", with(map[string]float64{"kill": 0.5})},
		{"kill=0.5,cut=0", with(map[string]float64{"kill": 0.5, "cut": 0})},
		{" delay=1 , reject=0.25 ", with(map[string]float64{"delay": 1, "reject": 0.25})},
		{"lose-unsynced=1e-2", with(map[string]float64{"lose-unsynced": 0.01})},
		{"kill=0.1,kill=0.2", with(map[string]float64{"kill": 0.2})},
	} {
		got, err := netfault.ParseRates(tc.spec, base)
		if err != nil {
			t.Errorf("ParseRates(%q): %v", tc.spec, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseRates(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
	if !reflect.DeepEqual(base, netfault.DefaultRates()) {
		t.Errorf("ParseRates changed its base: %v", base)
	}
}

func TestParseRatesOverCustomBase(t *testing.T) {
	base := map[string]float64{"kill": 0.3}
	got, err := netfault.ParseRates("kill=0.9", base)
	if err != nil || !reflect.DeepEqual(got, map[string]float64{"kill": 0.9}) {
		t.Errorf("ParseRates over a custom base = %v, %v", got, err)
	}
	if base["kill"] != 0.3 {
		t.Errorf("base changed to %v", base)
	}
}

func TestParseRatesErrors(t *testing.T) {
	base := netfault.DefaultRates()
	for _, tc := range []struct {
		spec string
		want []string // substrings of the error
	}{
		{"explode=0.1", []string{`"explode"`, strings.Join(netfault.Kinds(), ", ")}},
		{"kill=0.1,Cut=0.2", []string{`"Cut"`, "cut, delay, kill, lose-unsynced, post-lost, reject, route, stream-break"}},
		{"kill=1.5", []string{`"kill=1.5"`, "between 0 and 1"}},
		{"kill=-0.1", []string{`"kill=-0.1"`, "between 0 and 1"}},
		{"kill=lots", []string{`"kill=lots"`, "between 0 and 1"}},
		{"kill", []string{`"kill"`, "kind=rate"}},
		{"kill=0.1,", []string{"kind=rate"}},
	} {
		got, err := netfault.ParseRates(tc.spec, base)
		if err == nil {
			t.Errorf("ParseRates(%q) = %v, want an error", tc.spec, got)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseRates(%q) error %q does not contain %q", tc.spec, err, w)
			}
		}
	}
}

func ExampleParseRates() {
	rates, err := netfault.ParseRates("kill=0.05,cut=0", netfault.DefaultRates())
	fmt.Println(rates["kill"], rates["cut"], rates["delay"], err)
	_, err = netfault.ParseRates("drop=0.1", netfault.DefaultRates())
	fmt.Println(err)
	// Output:
	// 0.05 0 0.04 <nil>
	// fault rate "drop=0.1": unknown fault kind "drop", expected one of accepted-lost, client-restart, conn-expired, cut, delay, kill, lose-unsynced, post-lost, reject, route, stream-break
}

// A rate must be a whole number in [0, 1]: NaN, trailing text and a second
// dot are errors, not silently some other rate.
func TestParseRatesRejectsWhatIsNotARate(t *testing.T) {
	for _, v := range []string{"NaN", "nan", "0.5x", "0.2.3", "", "-0", "1.0000001"} {
		if v == "-0" {
			continue // -0 is 0, a valid rate
		}
		if _, err := netfault.ParseRates("kill="+v, netfault.DefaultRates()); err == nil {
			t.Errorf("kill=%s accepted", v)
		}
	}
}
