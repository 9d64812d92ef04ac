package deploylocal

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// s3Get makes a signed GET of path (path style: /bucket?query) on moto's
// S3, returning the status code and the body.
func s3Get(ctx context.Context, endpoint, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+path, nil)
	if err != nil {
		return 0, nil, err
	}
	const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	creds := aws.Credentials{AccessKeyID: "idemqlocal", SecretAccessKey: "idemqlocal"}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, emptySHA256, "s3", Region, time.Now()); err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// bucketExists says whether moto's S3 has bucket (GetBucketLocation).
func bucketExists(ctx context.Context, endpoint, bucket string) error {
	status, body, err := s3Get(ctx, endpoint, "/"+bucket+"?location")
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("GetBucketLocation of %s: %d %v %s", bucket, status, err, body)
	}
	return nil
}

// checkBucket checks the result bucket: moto has it, the function is
// given its name and prefix, and the template retains it and expires the
// objects under the prefix no sooner than the records the function is
// told to keep. moto's CloudFormation applies no LifecycleConfiguration
// (GetBucketLifecycleConfiguration answers NoSuchLifecycleConfiguration),
// so the rule is checked in the template, against the deployed
// IDEMQ_RECORD_EXPIRY. No bucket in the template (idemq:blobs false)
// means no IDEMQ_BLOB_BUCKET.
func (d *deployed) checkBucket(ctx context.Context, endpoint string, tpl *template) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var id string
	for rid, r := range tpl.Resources {
		if r.Type == "AWS::S3::Bucket" {
			id = rid
		}
	}
	if id == "" {
		if b := d.env["IDEMQ_BLOB_BUCKET"]; b != "" {
			bad("the function is given IDEMQ_BLOB_BUCKET=%s, and the template has no bucket", b)
		}
		return problems
	}
	d.bucket = d.physical[id]
	if err := bucketExists(ctx, endpoint, d.bucket); err != nil {
		bad("the result bucket: %v", err)
	}
	if got := d.env["IDEMQ_BLOB_BUCKET"]; got != d.bucket {
		bad("the function is given IDEMQ_BLOB_BUCKET=%q, want the bucket %q", got, d.bucket)
	}
	if p := tpl.Resources[id].DeletionPolicy; p != "Retain" {
		bad("template: the bucket's DeletionPolicy is %q, want Retain", p)
	}
	lc, _ := tpl.Resources[id].Properties["LifecycleConfiguration"].(map[string]any)
	rules, _ := lc["Rules"].([]any)
	var rule map[string]any
	if len(rules) == 1 {
		rule, _ = rules[0].(map[string]any)
	}
	expiry, err := time.ParseDuration(d.env["IDEMQ_RECORD_EXPIRY"])
	days, _ := rule["ExpirationInDays"].(float64)
	switch {
	case rule == nil:
		bad("template: the bucket has lifecycle rules %s, want one", jsonText(lc))
	case err != nil:
		bad("the function's IDEMQ_RECORD_EXPIRY=%q: %v", d.env["IDEMQ_RECORD_EXPIRY"], err)
	case rule["Status"] != "Enabled" || rule["Prefix"] != d.env["IDEMQ_BLOB_PREFIX"] || time.Duration(days)*24*time.Hour < expiry:
		bad("template: the bucket's lifecycle rule %s does not expire the objects under IDEMQ_BLOB_PREFIX=%q no sooner than IDEMQ_RECORD_EXPIRY=%s",
			jsonText(rule), d.env["IDEMQ_BLOB_PREFIX"], expiry)
	}
	return problems
}
