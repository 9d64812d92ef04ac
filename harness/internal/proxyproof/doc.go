// Package proxyproof proves that a user can depend on a release with the
// go command alone: it builds a file-system module proxy of the release
// (from its tags, from the commit CHANGELOG.md names, or from the working
// tree stamped as the next version; tools/release), and in
// throwaway modules outside the workspace, with no replace directive, gets
// the root module and each store (or the worker's contract, package
// worker) from it, tidies, builds README's "One call" example as printed
// (or a function of one's own on worker.FromEnv), runs a handlertest test, checks what the
// module graph holds, and installs the idemq command with go install
// …@version. The zips must each carry the repository's licence.
//
// IDEMQ_PROOF_VERSION=vX.Y.Z proves that release (make release sets it
// after tagging); unset, the working tree. It needs the go command and,
// for what the module cache lacks, the module proxy (GOPROXY).
package proxyproof
