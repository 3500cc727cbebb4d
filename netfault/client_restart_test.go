package netfault_test

import (
	"testing"

	"github.com/acpsim/acpsim/netfault"
)

// client-restart is a fault like the others: two options, a small default
// rate (a restart ends the Client's pipe and costs a reconnect, so it must
// stay rarer than a cut), and a rate can be raised from the command line.
func TestClientRestartIsAFault(t *testing.T) {
	var f *netfault.Fault
	for i := range netfault.Faults {
		if netfault.Faults[i].Kind == netfault.ClientRestart {
			f = &netfault.Faults[i]
		}
	}
	if f == nil {
		t.Fatal("client-restart missing from Faults")
	}
	if f.Options != 2 || f.Rate <= 0 || f.Rate > 0.01 {
		t.Errorf("client-restart = %+v, want 2 options and a small positive default rate", *f)
	}
	rates, err := netfault.ParseRates("client-restart=0.02", netfault.DefaultRates())
	if err != nil || rates[netfault.ClientRestart] != 0.02 {
		t.Errorf("ParseRates(client-restart=0.02) = %v, %v", rates[netfault.ClientRestart], err)
	}
}
