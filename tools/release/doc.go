// Package release keeps the repository's modules releasable and releases
// them (docs/development.md, "Modules" and "Releases"): it reads go.work
// (ReadWorkspace), tidies each module against the working tree and checks
// the layout (Tidy, TestOnly, Licences, Work), bumps the modules'
// requirements of each other (Bump), writes the changelog's section and
// tags every module (Release), and builds a file-system module proxy of a
// release or of the working tree (Choose, BuildProxy), which
// harness/internal/proxyproof depends on as a user would. Its tests also
// test scripts/release-check.sh, the API check a release runs.
//
// It is a module of its own that requires golang.org/x/mod alone and is
// never tagged: no user module pulls it in, and make builds its command
// with GOWORK=off, so it runs, and can repair go.work, even when the
// workspace cannot build.
package release
