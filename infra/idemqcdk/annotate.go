package idemqcdk

import (
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// The ids of the synth warnings, one for each thing a warning can be
// about, so that each can be acknowledged alone:
//
//	awscdk.Annotations_Of(stack).AcknowledgeWarning(jsii.String(idemqcdk.WarningDeadLetterStay), jsii.String("why it is fine here"))
//
// A warning's message says what to change to make it go away; `cdk synth
// --strict` fails on any warning not acknowledged.
const (
	// WarningVisibility: the visibility timeout is shorter than the
	// batching window and the function's timeout together, so a message
	// can show again while its function still runs it.
	WarningVisibility = "idemq:visibility"
	// WarningDeadLetterStay: a dead letter may be dropped by SQS less than
	// minDeadLetterStay after it moved to the dead-letter queue.
	WarningDeadLetterStay = "idemq:deadLetterStay"
	// WarningRecordExpiry: a record expiry given shorter than a redrive
	// from the dead-letter queue needs.
	WarningRecordExpiry = "idemq:recordExpiry"
	// WarningResultExpiry: the result bucket keeps results less than a day
	// longer than the records that point to them.
	WarningResultExpiry = "idemq:resultExpiry"
	// warningProviderURL: the model provider's URL is plain http to a host
	// that is not a loopback one.
	warningProviderURL = "idemq:providerUrl"
	// warningFrontDoorPublic: the front door's function URL takes
	// requests from anyone (AuthType NONE).
	warningFrontDoorPublic = "idemq:frontDoorPublic"
)

// warning is a synth warning: its id (one of the Warning constants) and
// its message.
type warning struct{ id, msg string }

// warn adds each warning to c as a synth warning, under its own id.
func warn(c constructs.IConstruct, warnings []warning) {
	for _, w := range warnings {
		awscdk.Annotations_Of(c).AddWarningV2(jsii.String(w.id), jsii.String(w.msg), nil)
	}
}

// refuse adds err to c as a synth error: `cdk synth` and `cdk deploy` then
// fail with its message, naming c's path, and deploy nothing.
func refuse(c constructs.IConstruct, err error) {
	addErrorOnce(c, err.Error())
}

// errorEntry is the metadata type CDK files an error annotation under.
const errorEntry = "aws:cdk:error"

// addErrorOnce adds msg to c as a synth error, unless c has it already
// (the checks run at every synthesis of the app, and two of idemq's
// constructs may find the same fault).
func addErrorOnce(c constructs.IConstruct, msg string) {
	if slices.ContainsFunc(*c.Node().Metadata(), func(e *constructs.MetadataEntry) bool {
		s, ok := e.Data.(string)
		return e.Type != nil && *e.Type == errorEntry && ok && s == msg
	}) {
		return
	}
	awscdk.Annotations_Of(c).AddError(jsii.String(msg))
}
