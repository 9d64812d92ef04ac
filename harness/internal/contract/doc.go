// Package contract holds the cross-part property test of the request
// contract (package request): random bodies × key rules × namespaces ×
// scopes, one request sent through every part that meets it (the
// producer, the handler, the front door, the command's key path, the
// durable dispatcher), each part wired from one request.Identity as a
// user wires it, and every part's key compared. It lives in the harness
// module because it needs every module at once: the root's parts and the
// durable dispatcher's module. The command's own key code
// (cmd/idemq/internal/recordkey) is held to the handler's key by its
// tests. docs/proof.md says what it checks and what it
// found.
package contract
