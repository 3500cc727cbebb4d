package world

import (
	"testing"

	"go.uber.org/goleak"
)

// Swarm starts worker goroutines; none may outlive it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
