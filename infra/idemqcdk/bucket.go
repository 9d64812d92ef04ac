package idemqcdk

import (
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// BlobPrefix is the key prefix of the worker's objects in its bucket
// (Worker.Bucket), passed as EnvBlobPrefix: the lifecycle rule and the
// function's grant cover it alone.
const BlobPrefix = "idemq/"

// day is how S3 lifecycle rules count.
const day = 24 * time.Hour

// blobExpiryDays is how many days the bucket keeps an object under
// BlobPrefix, for records that live expiry: expiry rounded up to whole
// days, and a day more, so that no record outlives the result it points
// to (a replay whose object is gone fails instead of answering).
func blobExpiryDays(expiry time.Duration) int {
	return int((expiry+day-1)/day) + 1
}

// checkBlobExpiry refuses an object lifetime of days shorter than the
// record expiry: a record would then point to an object already expired.
func checkBlobExpiry(days int, expiry time.Duration) error {
	if time.Duration(days)*day < expiry {
		return &SettingError{Field: "RecordExpiry", Msg: fmt.Sprintf(
			"the bucket's lifecycle rule would expire results after %d days, before the records that point to them (%s): a replay would find its result gone", days, expiry)}
	}
	return nil
}

// newBucket is the bucket of results too large for a record: encrypted
// with S3-managed keys, public access blocked, refusing requests not made
// over TLS, and expiring objects under BlobPrefix after days. Like the
// table, it and its TLS policy are kept when the stack is deleted: a
// record kept in the table may point to an object in it.
func newBucket(scope constructs.Construct, days int) awss3.Bucket {
	b := awss3.NewBucket(scope, jsii.String("Bucket"), &awss3.BucketProps{
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:         jsii.String("ExpireResults"),
			Enabled:    jsii.Bool(true),
			Prefix:     jsii.String(BlobPrefix),
			Expiration: awscdk.Duration_Days(jsii.Number(days)),
		}},
	})
	// The TLS-only policy stays with the bucket it guards.
	b.Policy().Node().DefaultChild().(awscdk.CfnResource).ApplyRemovalPolicy(awscdk.RemovalPolicy_RETAIN, nil)
	return b
}
