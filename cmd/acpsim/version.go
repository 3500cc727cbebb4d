package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// unknownVersion is what the Go toolchain itself calls a build it cannot
// version, used for the commit too when the build recorded none.
const unknownVersion = "(devel)"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print acpsim's module version and the VCS commit it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}

// versionLine is "acpsim VERSION commit REV", REV with "+modified" when the
// working tree had uncommitted changes.
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	version, commit := unknownVersion, unknownVersion
	if bi != nil && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	rev, modified := buildVCS(bi)
	if rev != "" {
		commit = rev
	}
	if modified && commit != unknownVersion {
		commit += "+modified"
	}
	return fmt.Sprintf("acpsim %s commit %s", version, commit)
}

// buildVCS is the build's VCS stamp: the revision ("" when the build has
// none, as with -buildvcs=false) and whether the tree had changes.
func buildVCS(bi *debug.BuildInfo) (rev string, modified bool) {
	if bi == nil {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}
