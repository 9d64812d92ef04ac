package deploylocal

import "io"

// Config says what Run deploys and sends.
type Config struct {
	Root string // the repository's root, where cdk.json is
	CDK  string // the pinned CDK CLI, node_modules/.bin/cdk
	RIE  string // aws-lambda-rie
	// Keys is how many idempotency keys are sent, each Copies times.
	// Default to 8 and 3.
	Keys, Copies int
	// Instances is how many function instances the event source feeds.
	// Defaults to 2.
	Instances int
	// Log receives the CLI's, moto's and the worker's output. Defaults to
	// discarding it.
	Log io.Writer
}
