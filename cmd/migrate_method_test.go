package cmd

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// --method auto, the default, runs bulk on a store no migration has touched and the steps
// on one a migration left mid-way (only they resume it); a method asked for by name runs.
// The JSON says which ran.
func TestMigrateAutoChoosesTheMethod(t *testing.T) {
	untouched := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "store")
		makeFixture(t, dir, format.Format2)
		return dir
	}
	midway := func(t *testing.T) string {
		return storetest.CopyStore(t, storetest.Extract(t, "migration/midway.tar.zst"))
	}
	cases := []struct {
		name    string
		store   func(t *testing.T) string
		args    []string
		want    string
		resumed bool
	}{
		{"untouched, default", untouched, nil, methodBulk, false},
		{"untouched, auto", untouched, []string{"--method", "auto"}, methodBulk, false},
		{"untouched, steps asked", untouched, []string{"--method", "steps"}, methodSteps, false},
		{"mid-way, default", midway, nil, methodSteps, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.store(t)
			args := append(append([]string{"migrate", "--no-backup", "--now", migrateNow, "-o", "json"}, c.args...), dir)
			code, stdout, stderr := runCLI(t.Context(), args)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
			}
			var res struct {
				Method   string `json:"method"`
				Resumed  bool   `json:"resumed"`
				Finished bool   `json:"finished"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatal(err)
			}
			if res.Method != c.want || res.Resumed != c.resumed || !res.Finished {
				t.Errorf("%v: method %q resumed %v finished %v, want %q resumed %v finished", args, res.Method, res.Resumed, res.Finished, c.want, c.resumed)
			}
		})
	}
}
