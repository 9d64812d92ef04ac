package idemqcdk_test

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// TestNoBlobs checks that idemq:blobs false keeps the stack as it was
// before the bucket: no bucket, no S3 grant, no blob variables, no output.
func TestNoBlobs(t *testing.T) {
	tpl := synth(t, map[string]any{"idemq:blobs": false})
	id := resourceIDs(t, tpl)
	if id.bucket != "" {
		t.Errorf("bucket %s with idemq:blobs false", id.bucket)
	}
	check(t, "no bucket", func() {
		tpl.ResourceCountIs(jsii.String("AWS::S3::Bucket"), jsii.Number(0))
		tpl.ResourceCountIs(jsii.String("AWS::S3::BucketPolicy"), jsii.Number(0))
	})
	wantGrants(t, tpl, id, true)
	noWildcards(t, tpl)
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{
				"IDEMQ_BLOB_BUCKET": assertions.Match_Absent(),
				"IDEMQ_BLOB_PREFIX": assertions.Match_Absent(),
			}},
		})
	})
	if outputs := *tpl.FindOutputs(jsii.String("BlobBucketName"), nil); len(outputs) != 0 {
		t.Errorf("outputs %v with idemq:blobs false", outputs)
	}
}

// TestBlobExpiryFollowsRecordExpiry checks that the lifecycle rule follows
// idemq:recordExpiry: rounded up to whole days, and a day more.
func TestBlobExpiryFollowsRecordExpiry(t *testing.T) {
	for expiry, days := range map[string]int{"600h": 26, "601h": 27} {
		t.Run(expiry, func(t *testing.T) {
			tpl := synth(t, map[string]any{"idemq:recordExpiry": expiry})
			check(t, "lifecycle", func() {
				tpl.HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj{
					"LifecycleConfiguration": obj{"Rules": arr{obj{"Prefix": "idemq/", "ExpirationInDays": days}}},
				})
			})
		})
	}
}
