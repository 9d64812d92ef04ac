// Package release tests scripts/release-check.sh, the check a release of
// the repository's modules runs (make release-check VERSION=vX.Y.Z): each
// module's API compared with its last release by apidiff, the version bump
// the stability promise asks for, the requirements of the repository's
// modules at the version released, the CHANGELOG section and the tags.
package release
