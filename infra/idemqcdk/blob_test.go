package idemqcdk_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
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

// TestBlobSettings checks that idemq:blobPrefix and idemq:blobExpiryDays
// reach every place they must: the lifecycle rule's prefix and days, the
// grant's resource (the objects under the prefix, no others), the
// function's IDEMQ_BLOB_PREFIX and the bucket output's description; and
// that a lifetime a day or more over the records deploys without warning.
func TestBlobSettings(t *testing.T) {
	stack := newStack(t, map[string]any{"idemq:blobPrefix": "results/llm-v2/", "idemq:blobExpiryDays": 30})
	tpl := assertions.Template_FromStack(stack, nil)
	id := resourceIDs(t, tpl)
	check(t, "lifecycle", func() {
		tpl.HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj{
			"LifecycleConfiguration": obj{"Rules": assertions.Match_ArrayEquals(&arr{obj{
				"Id": "ExpireResults", "Status": "Enabled", "Prefix": "results/llm-v2/", "ExpirationInDays": 30,
			}})},
		})
	})
	check(t, "environment", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Environment": obj{"Variables": obj{"IDEMQ_BLOB_PREFIX": "results/llm-v2/", "IDEMQ_BLOB_BUCKET": ref(id.bucket)}},
		})
	})
	if id.blobPrefix != "results/llm-v2/" {
		t.Fatalf("IDEMQ_BLOB_PREFIX %q", id.blobPrefix)
	}
	// Exactly put and get on <bucket ARN>/results/llm-v2/*, and nothing
	// under idemq/.
	wantGrants(t, tpl, id, true)
	check(t, "grant", func() {
		tpl.HasResourceProperties(jsii.String("AWS::IAM::Policy"), obj{"PolicyDocument": obj{"Statement": assertions.Match_ArrayWith(&arr{obj{
			"Sid": "ResultBlobs", "Effect": "Allow", "Action": arr{"s3:GetObject", "s3:PutObject"},
			"Resource": obj{"Fn::Join": arr{"", arr{getAtt(id.bucket, "Arn"), "/results/llm-v2/*"}}},
		}})}})
	})
	noWildcards(t, tpl)
	check(t, "output", func() {
		tpl.HasOutput(jsii.String("BlobBucketName"), obj{"Description": "Results too large for a record, under results/llm-v2/."})
	})
	check(t, "no warning", func() {
		assertions.Annotations_FromStack(stack).HasNoWarning(jsii.String("*"), assertions.Match_AnyValue())
	})
}

// TestBlobExpiryDaysUnderADayOverWarns checks that a lifecycle that covers
// the record expiry by less than a day deploys with a warning naming the
// key: the least whole number of days over the 541h15m0s records, 23.
func TestBlobExpiryDaysUnderADayOverWarns(t *testing.T) {
	stack := newStack(t, map[string]any{"idemq:blobExpiryDays": 23})
	check(t, "lifecycle", func() {
		assertions.Template_FromStack(stack, nil).HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj{
			"LifecycleConfiguration": obj{"Rules": arr{obj{"Prefix": "idemq/", "ExpirationInDays": 23}}},
		})
	})
	check(t, "warning", func() {
		assertions.Annotations_FromStack(stack).HasWarning(jsii.String("/Idemq/Worker"),
			assertions.Match_StringLikeRegexp(jsii.String(`idemq:blobExpiryDays 23 covers idemq:recordExpiry 541h15m0s by less than a day.*leave idemq:blobExpiryDays unset for 24`)))
	})
}

// TestRejectedBlobSettings checks that a blob lifetime shorter than the
// records, or a prefix the rule, the grant and the worker cannot share,
// fails the synth before anything is created, naming the key.
func TestRejectedBlobSettings(t *testing.T) {
	cases := []struct {
		name    string
		context map[string]any
		field   string // the WorkerProps field at fault
		names   []string
	}{
		{"a lifetime a day short of the default records (541h15m0s: 23 days at least)",
			map[string]any{"idemq:blobExpiryDays": 22}, "BlobExpiryDays", []string{"idemq:blobExpiryDays 22", "idemq:recordExpiry 541h15m0s", "at least 23"}},
		{"a lifetime shorter than records set by hand",
			map[string]any{"idemq:recordExpiry": "600h", "idemq:blobExpiryDays": 24}, "BlobExpiryDays", []string{"idemq:blobExpiryDays 24", "idemq:recordExpiry 600h0m0s", "at least 25"}},
		{"a lifetime of one day",
			map[string]any{"idemq:blobExpiryDays": "1"}, "BlobExpiryDays", []string{"idemq:blobExpiryDays 1"}},
		{"a lifetime of 0 days",
			map[string]any{"idemq:blobExpiryDays": 0}, "BlobExpiryDays", []string{"idemq:blobExpiryDays is the number 0"}},
		{"a negative lifetime",
			map[string]any{"idemq:blobExpiryDays": -30}, "BlobExpiryDays", []string{"idemq:blobExpiryDays -30", "at least 1"}},
		{"a lifetime that is not a whole number",
			map[string]any{"idemq:blobExpiryDays": 30.5}, "BlobExpiryDays", []string{"idemq:blobExpiryDays is the number 30.5"}},
		{"a lifetime as a duration",
			map[string]any{"idemq:blobExpiryDays": "30d"}, "BlobExpiryDays", []string{"idemq:blobExpiryDays"}},
		{"an empty prefix",
			map[string]any{"idemq:blobPrefix": ""}, "BlobPrefix", []string{`idemq:blobPrefix ""`, "is empty"}},
		{"a prefix without its closing slash",
			map[string]any{"idemq:blobPrefix": "results"}, "BlobPrefix", []string{`idemq:blobPrefix "results"`, "does not end with '/'"}},
		{"a prefix with a leading slash",
			map[string]any{"idemq:blobPrefix": "/results/"}, "BlobPrefix", []string{`idemq:blobPrefix "/results/"`, "starts with '/'"}},
		{"a prefix with an empty segment",
			map[string]any{"idemq:blobPrefix": "results//llm/"}, "BlobPrefix", []string{"idemq:blobPrefix", `segment ""`}},
		{"a prefix with a dot-dot segment",
			map[string]any{"idemq:blobPrefix": "results/../"}, "BlobPrefix", []string{"idemq:blobPrefix", `segment ".."`}},
		{"a prefix with a wildcard",
			map[string]any{"idemq:blobPrefix": "res*/"}, "BlobPrefix", []string{"idemq:blobPrefix", `holds '*'`}},
		{"a prefix with a space",
			map[string]any{"idemq:blobPrefix": "my results/"}, "BlobPrefix", []string{"idemq:blobPrefix", `holds ' '`}},
		{"a prefix with a non-ASCII letter",
			map[string]any{"idemq:blobPrefix": "résultats/"}, "BlobPrefix", []string{"idemq:blobPrefix", `holds 'é'`}},
		{"a prefix with a policy variable",
			map[string]any{"idemq:blobPrefix": "${aws:username}/"}, "BlobPrefix", []string{"idemq:blobPrefix", `holds '$'`}},
		{"a prefix over 512 bytes",
			map[string]any{"idemq:blobPrefix": strings.Repeat("a/", 257)}, "BlobPrefix", []string{"idemq:blobPrefix", "514 bytes long, over 512"}},
		{"a number as the prefix",
			map[string]any{"idemq:blobPrefix": 42}, "BlobPrefix", []string{"idemq:blobPrefix is the number 42"}},
		{"a prefix without the bucket",
			map[string]any{"idemq:blobs": false, "idemq:blobPrefix": "results/"}, "BlobPrefix", []string{"idemq:blobPrefix is set", "idemq:blobs"}},
		{"a lifetime without the bucket",
			map[string]any{"idemq:blobs": false, "idemq:blobExpiryDays": 30}, "BlobExpiryDays", []string{"idemq:blobExpiryDays is set", "idemq:blobs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := synthRefused(t, c.context, c.field)
			for _, want := range c.names {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the message does not say %s: %v", want, err)
				}
			}
			t.Log(err)
		})
	}
}

// TestBlobPropsCheck checks the construct's side: WorkerProps.Check names
// the fields, and accepts the prefixes and lifetimes that can work.
func TestBlobPropsCheck(t *testing.T) {
	for _, ok := range []idemqcdk.WorkerProps{
		{Request: request.Identity{Namespace: "jobs"}, BlobPrefix: "a/"},
		{Request: request.Identity{Namespace: "jobs"}, BlobPrefix: "tenant-1/results_v2/(x)/it's.ok!/"},
		{Request: request.Identity{Namespace: "jobs"}, BlobPrefix: strings.Repeat("ab/", 170)}, // 510 bytes
		{Request: request.Identity{Namespace: "jobs"}, BlobExpiryDays: 24},
		{Request: request.Identity{Namespace: "jobs"}, BlobExpiryDays: 3650},
	} {
		if err := ok.Check(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	for field, bad := range map[string]idemqcdk.WorkerProps{
		"BlobPrefix":     {Request: request.Identity{Namespace: "jobs"}, BlobPrefix: "./"},
		"BlobExpiryDays": {Request: request.Identity{Namespace: "jobs"}, BlobExpiryDays: -1},
	} {
		err := bad.Check()
		var se *idemqcdk.SettingError
		if !errors.As(err, &se) || se.Field != field || !strings.Contains(err.Error(), field+" ") {
			t.Errorf("%+v: got %v, want a *SettingError naming %s", bad, err, field)
		}
	}
}
