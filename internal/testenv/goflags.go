package testenv

import (
	"runtime/debug"
	"testing"
)

// GoFlags returns the go command's flags that this test binary was built
// with and that decide which compiled packages the build cache holds
// (-race, -trimpath, -tags), for a test that runs go build or go list
// -export: with them it compiles only its own package, taking the rest
// from what go test compiled for the run (under make test's -race, a
// plain go build would compile every dependency again without it).
func GoFlags(t testing.TB) []string {
	t.Helper()
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("testenv: the test binary has no build information")
	}
	return goFlags(info.Settings)
}

func goFlags(settings []debug.BuildSetting) []string {
	var flags []string
	for _, s := range settings {
		switch {
		case (s.Key == "-race" || s.Key == "-trimpath") && s.Value == "true":
			flags = append(flags, s.Key)
		case s.Key == "-tags" && s.Value != "":
			flags = append(flags, "-tags="+s.Value)
		}
	}
	return flags
}
