package idemqcdk

import (
	"maps"
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// makeStore makes what an Attachment keeps records in, a queue's or a
// stream's alike: the record table, the result bucket if s keeps one, and
// the handler's environment naming them, set on fn (nil: none to set).
func (a *Attachment) makeStore(c constructs.Construct, fn awslambda.Function, s settings) {
	a.Table = newRecordTable(c, "Table", s)
	if s.blobs {
		a.Bucket = &ResultBucket{Bucket: newBucket(c, "Bucket", s.blobPrefix, s.blobDays), Prefix: s.blobPrefix, ExpiryDays: s.blobDays}
	}
	a.Environment = handlerEnv(a.Table, a.Bucket, s)
	if fn != nil {
		for _, k := range slices.Sorted(maps.Keys(a.Environment)) {
			fn.AddEnvironment(jsii.String(k), a.Environment[k], nil)
		}
	}
}
