package release

import (
	"strings"
	"testing"
)

var siblings = map[string]bool{
	"example.com/m":       true,
	"example.com/m/store": true,
	"example.com/m/cmd":   true,
}

func TestBump(t *testing.T) {
	t.Parallel()
	const zero = "v0.0.0-00010101000000-000000000000"
	for _, tc := range []struct {
		name, in, want string
		changed        bool
	}{
		{
			name: "a block: siblings bumped, the rest as it was",
			in: `module example.com/m/cmd

go 1.26.0

require (
	example.com/m ` + zero + `
	// the store the command opens
	example.com/m/store ` + zero + ` // pinned with the root
	github.com/jackc/pgx/v5 v5.13.0
)

require (
	example.com/m/other v0.1.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
`,
			want: `module example.com/m/cmd

go 1.26.0

require (
	example.com/m v0.2.0
	// the store the command opens
	example.com/m/store v0.2.0 // pinned with the root
	github.com/jackc/pgx/v5 v5.13.0
)

require (
	example.com/m/other v0.1.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
`,
			changed: true,
		},
		{
			name:    "one line, an indirect sibling",
			in:      "module example.com/m/store\n\ngo 1.26.0\n\nrequire example.com/m v0.1.0 // indirect\n",
			want:    "module example.com/m/store\n\ngo 1.26.0\n\nrequire example.com/m v0.2.0 // indirect\n",
			changed: true,
		},
		{
			name: "already there",
			in:   "module example.com/m/store\n\ngo 1.26.0\n\nrequire (\n\texample.com/m v0.2.0\n\tgolang.org/x/text v0.41.0\n)\n",
			want: "module example.com/m/store\n\ngo 1.26.0\n\nrequire (\n\texample.com/m v0.2.0\n\tgolang.org/x/text v0.41.0\n)\n",
		},
		{
			name: "no sibling",
			in:   "module example.com/m\n\ngo 1.26.0\n\nrequire golang.org/x/text v0.41.0\n",
			want: "module example.com/m\n\ngo 1.26.0\n\nrequire golang.org/x/text v0.41.0\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, changed, err := Bump("go.mod", []byte(tc.in), siblings, "v0.2.0")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || changed != tc.changed {
				t.Errorf("Bump = changed %v\n%s\nwant changed %v\n%s", changed, got, tc.changed, tc.want)
			}
			again, changed, err := Bump("go.mod", got, siblings, "v0.2.0")
			if err != nil || changed || string(again) != string(got) {
				t.Errorf("a second Bump changed %v (err %v):\n%s", changed, err, again)
			}
		})
	}
}

func TestBumpRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, version, want string
	}{
		{"a replace directive", "module example.com/m/store\n\ngo 1.26.0\n\nrequire example.com/m v0.1.0\n\nreplace example.com/m => ../..\n", "v0.2.0", "replace example.com/m"},
		{"an exclude directive", "module example.com/m/store\n\ngo 1.26.0\n\nrequire example.com/m v0.1.0\n\nexclude golang.org/x/text v0.3.0\n", "v0.2.0", "exclude golang.org/x/text"},
		{"a v2 without /v2", "module example.com/m/store\n\ngo 1.26.0\n\nrequire example.com/m v0.1.0\n", "v2.0.0", "v2.0.0"},
		{"not a go.mod", "module example.com/m/store\nrequire (\n", "v0.2.0", "go.mod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := Bump("go.mod", []byte(tc.in), siblings, tc.version); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Bump = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

func TestCheckVersion(t *testing.T) {
	t.Parallel()
	for v, ok := range map[string]bool{
		"v0.2.0": true, "v1.12.3": true,
		"v0.2": false, "0.2.0": false, "v0.2.0-rc.1": false, "v2.0.0": false, "": false, "v0.02.0": false,
	} {
		if err := CheckVersion(v); (err == nil) != ok {
			t.Errorf("CheckVersion(%q) = %v, want ok %v", v, err, ok)
		}
	}
}

func TestRequired(t *testing.T) {
	t.Parallel()
	ws := Workspace{{".", "example.com/m"}, {"store", "example.com/m/store"}, {"cmd", "example.com/m/cmd"}}
	files := map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.26.0\n",
		"store/go.mod": "module example.com/m/store\n\ngo 1.26.0\n\nrequire example.com/m v0.2.0\n",
		"cmd/go.mod":   "module example.com/m/cmd\n\ngo 1.26.0\n\nrequire (\n\texample.com/m v0.2.0\n\texample.com/m/store v0.2.0\n)\n",
	}
	read := func(name string) ([]byte, error) { return []byte(files[name]), nil }
	if v, err := Required(ws, read); err != nil || v != "v0.2.0" {
		t.Errorf("Required = %q, %v; want v0.2.0", v, err)
	}
	if ok, why, err := Bumped(ws, read, "v0.3.0"); err != nil || ok || !strings.Contains(why, "store/go.mod requires example.com/m@v0.2.0") {
		t.Errorf("Bumped(v0.3.0) = %v, %q, %v; want false naming store/go.mod", ok, why, err)
	}
	files["store/go.mod"] = "module example.com/m/store\n\ngo 1.26.0\n\nrequire example.com/m v0.1.0\n"
	if _, err := Required(ws, read); err == nil || !strings.Contains(err.Error(), "v0.1.0: store → example.com/m") {
		t.Errorf("Required with two versions = %v, want an error naming store's", err)
	}
}

func TestWork(t *testing.T) {
	t.Parallel()
	ws := Workspace{{".", "example.com/m"}, {"store", "example.com/m/store"}, {"cmd", "example.com/m/cmd"}}
	in := `go 1.26.0

use (
	.
	./cmd
	./store
)

// Sent to the working tree.
replace (
	example.com/m v0.1.0 => .
	example.com/m/gone v0.1.0 => ./gone // a module no longer used
	example.com/m/store v0.1.0 => ./store // the store
	golang.org/x/text => ../text
)
`
	want := `go 1.26.0

use (
	.
	./cmd
	./store
)

// Sent to the working tree.
replace (
	example.com/m v0.2.0 => .
	example.com/m/store v0.2.0 => ./store // the store
	golang.org/x/text => ../text
	example.com/m/cmd v0.2.0 => ./cmd
)
`
	got, changed, err := Work([]byte(in), ws, "v0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if !changed || string(got) != want {
		t.Errorf("Work = changed %v\n%s\nwant\n%s", changed, got, want)
	}
	again, changed, err := Work(got, ws, "v0.2.0")
	if err != nil || changed || string(again) != string(got) {
		t.Errorf("a second Work changed %v (err %v):\n%s", changed, err, again)
	}
}
