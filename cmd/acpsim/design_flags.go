package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/world"
)

// designFlags are --design and --design-file, spelled the same on every
// command that runs worlds (sim/design).
type designFlags struct {
	specs []string
	file  string
}

const designDoc = `an Agent design: a built-in's name or NAME=SETTING:VALUE,… (mine=busy:reject,keys:memory; acpsim knobs)`

func (d *designFlags) register(fs *pflag.FlagSet, many bool) {
	doc := designDoc
	if many {
		doc += "; repeatable"
	}
	fs.StringArrayVar(&d.specs, "design", nil, doc)
	fs.StringVar(&d.file, "design-file", "", "a file of designs, one per line: NAME = SETTING:VALUE, …  # why")
}

// all are the designs given: the file's, then each --design (a name may
// be one of the file's).
func (d *designFlags) all() ([]design.Design, error) {
	var fromFile []design.Design
	if d.file != "" {
		var err error
		if fromFile, err = design.ReadFile(d.file); err != nil {
			return nil, fmt.Errorf("--design-file: %v", err)
		}
	}
	if len(d.specs) == 0 {
		return fromFile, nil
	}
	var out []design.Design
	for _, s := range d.specs {
		ds, err := design.Parse(s, fromFile)
		if err != nil {
			return nil, fmt.Errorf("--design: %v", err)
		}
		if _, dup := design.Lookup(ds.Name, out); dup {
			return nil, fmt.Errorf("--design: %s is given twice", ds.Name)
		}
		out = append(out, ds)
	}
	return out, nil
}

// one is the design of a command that runs one configuration (run, swarm,
// explore): none, or exactly one.
func (d *designFlags) one() (*design.Design, error) {
	ds, err := d.all()
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	if len(ds) > 1 {
		return nil, fmt.Errorf("--design: %d designs (%s); this command runs one (acpsim matrix runs many)", len(ds), strings.Join(design.Names(ds), ", "))
	}
	return &ds[0], nil
}

// applyDesign applies the design of d to cfg, refusing a setting that a
// flag of fs sets too (which would win would be a guess).
func applyDesign(d *designFlags, fs *pflag.FlagSet, cfg *world.Config) error {
	ds, err := d.one()
	if err != nil || ds == nil {
		return err
	}
	for _, s := range ds.Settings {
		if f := fs.Lookup(s.Key); f != nil && f.Changed {
			return fmt.Errorf("--%s and --design %s (%s:%s) both set %s: give it once", s.Key, ds.Name, s.Key, s.Value, s.Key)
		}
	}
	if err := ds.Apply(cfg); err != nil {
		return fmt.Errorf("--design %s: %v", ds.Name, err)
	}
	if !ds.RunsOn(cfg.Link) {
		return fmt.Errorf("--design %s runs on %s only, not --link %s", ds.Name, strings.Join(ds.Links, ", "), cfg.Link)
	}
	return nil
}

// designRerunFlags are the run flags that stand for the design flags of fs
// in a rerun command: the design's own settings, so that the command needs
// no design file.
func designRerunFlags(fs *pflag.FlagSet) []string {
	spec, file := fs.Lookup("design"), fs.Lookup("design-file")
	if spec == nil || (!spec.Changed && (file == nil || !file.Changed)) {
		return nil
	}
	d := designFlags{file: file.Value.String()}
	if sv, ok := spec.Value.(pflag.SliceValue); ok {
		d.specs = sv.GetSlice()
	}
	ds, err := d.one()
	if err != nil || ds == nil {
		return nil
	}
	return ds.Flags()
}
