// Package release tests scripts/release-check.sh, the check a release of
// the root module runs (make release-check VERSION=vX.Y.Z): the API
// compared with the last release by apidiff, the version bump the
// stability promise asks for, and the CHANGELOG section.
package release
