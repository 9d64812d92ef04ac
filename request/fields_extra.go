//go:build !idemq_keysource

package request

// extraFields are Fields added by a build: none. A build with the tag
// idemq_keysource adds a key source of its own (fields_keysource.go), for
// the test that shows a key source added to the table reaches the
// environment, the CDK constructs and the command with no change to
// them.
func extraFields() []Field { return nil }
