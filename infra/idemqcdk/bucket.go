package idemqcdk

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// defaultBlobPrefix is the key prefix of the worker's objects in its bucket
// (Worker.Bucket) when WorkerProps.BlobPrefix is empty.
const defaultBlobPrefix = "idemq/"

// maxBlobPrefix is the longest WorkerProps.BlobPrefix, in bytes: the
// object's name that follows it (the key's SHA-256 and the owner token,
// 97 characters) must fit in S3's 1024-byte key.
const maxBlobPrefix = 512

// blobPrefixChars are the characters a blob prefix may hold: S3's safe
// characters for object keys, less '*', which an IAM resource reads as a
// wildcard (the grant on the prefix would cover other keys too).
const blobPrefixChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!-_.'()/"

// checkBlobPrefix refuses a prefix the lifecycle rule, the grant and the
// worker cannot all read the same way: it must be a plain string (not a
// token), non-empty, at most 512 bytes, of blobPrefixChars,
// ending in '/', not starting with one, with no empty, "." or ".."
// segment. What it accepts is then exactly the keys under it, in the rule's
// Prefix, the grant's resource (prefix + "*") and envBlobPrefix.
func checkBlobPrefix(prefix string, label func(field string) string) error {
	bad := func(why string) error {
		return &SettingError{Field: "BlobPrefix", Msg: fmt.Sprintf(
			"%s %q %s; want a key prefix such as %q: letters, digits and !-_.'() in segments each ending in '/'", label("BlobPrefix"), prefix, why, defaultBlobPrefix)}
	}
	switch {
	case prefix == "":
		return bad("is empty (the worker's objects would share the bucket's root with anything else, and the lifecycle rule would expire it all)")
	case isToken(prefix):
		return bad("is a token (a value known only at deployment): the lifecycle rule and the grant need it at synth")
	case len(prefix) > maxBlobPrefix:
		return bad(fmt.Sprintf("is %d bytes long, over %d", len(prefix), maxBlobPrefix))
	case strings.HasPrefix(prefix, "/"):
		return bad("starts with '/' (S3 keys have no leading slash: the objects would be under an empty segment)")
	case !strings.HasSuffix(prefix, "/"):
		return bad("does not end with '/' (the rule and the grant would also cover keys that merely start the same, like idemq-other/)")
	}
	if i := strings.IndexFunc(prefix, func(r rune) bool { return !strings.ContainsRune(blobPrefixChars, r) }); i >= 0 {
		return bad(fmt.Sprintf("holds %q, which is not a safe key character (or, for '*', a wildcard in the grant)", []rune(prefix[i:])[0]))
	}
	for _, seg := range strings.Split(strings.TrimSuffix(prefix, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return bad(fmt.Sprintf("has a segment %q (an empty, \".\" or \"..\" segment is read differently by tools that treat keys as paths)", seg))
		}
	}
	return nil
}

// day is how S3 lifecycle rules count.
const day = 24 * time.Hour

// blobExpiryDays is how many days the bucket keeps an object under the
// prefix by default, for records that live expiry: expiry rounded up to whole
// days, and a day more, so that no record outlives the result it points
// to (a replay whose object is gone fails instead of answering).
func blobExpiryDays(expiry time.Duration) int {
	return int((expiry+day-1)/day) + 1
}

// checkBlobExpiry refuses an object lifetime of days shorter than the
// record expiry: a record would then point to an object already expired,
// and its replays fail. Messages name both settings by label.
func checkBlobExpiry(days int, expiry time.Duration, label func(field string) string) error {
	if days < 1 {
		return &SettingError{Field: "BlobExpiryDays", Msg: fmt.Sprintf(
			"%s %d must be a whole number of days of at least 1; leave it unset for the record expiry rounded up to whole days, plus one (%d)",
			label("BlobExpiryDays"), days, blobExpiryDays(expiry))}
	}
	if time.Duration(days)*day < expiry {
		return &SettingError{Field: "BlobExpiryDays", Msg: fmt.Sprintf(
			"%s %d would have the bucket's lifecycle rule expire results after %d days, before the records that point to them (%s %s): "+
				"a replay would find its result gone; raise it to at least %d, or leave it unset for %d",
			label("BlobExpiryDays"), days, days, label("RecordExpiry"), expiry, int((expiry+day-1)/day), blobExpiryDays(expiry))}
	}
	return nil
}

// blobExpiryWarning is a warning for an object lifetime of days that covers
// the record expiry by less than a day: an object is written just before
// its record's completion, from which the record's expiry counts, so it
// may be the older by the completion's time, and S3 expires objects
// asynchronously, by the day.
func blobExpiryWarning(days int, expiry time.Duration, label func(field string) string) string {
	if time.Duration(days)*day >= expiry+day {
		return ""
	}
	return fmt.Sprintf("%s %d covers %s %s by less than a day: an object is written just before its record is completed, so a record may outlive its result "+
		"by the completion's time and its last replays fail; leave %s unset for %d", label("BlobExpiryDays"), days, label("RecordExpiry"), expiry, label("BlobExpiryDays"), blobExpiryDays(expiry))
}

// ResultBucket is the bucket of results too large for a record: S3-managed
// encryption, public access blocked, requests not made over TLS refused, a
// lifecycle rule expiring the results under Prefix after ExpiryDays, kept
// (with its TLS policy) when the stack is deleted, since a record kept in
// the table may point to an object in it. Give the function its name as
// envBlobBucket and Prefix as envBlobPrefix, and GrantResults (an
// Attachment does).
type ResultBucket struct {
	// Bucket is the bucket.
	Bucket awss3.Bucket
	// Prefix is the results' key prefix.
	Prefix string
	// ExpiryDays is how many days a result is kept.
	ExpiryDays int
}

// GrantResults lets grantee put and get the objects under the bucket's
// prefix (blobActions), and nothing else: no listing, no delete.
func (b *ResultBucket) GrantResults(grantee awsiam.IGrantable) {
	allowBlobs(grantee, b.Bucket, b.Prefix)
}

// newBucket is the bucket of results too large for a record, as id in
// scope: encrypted with S3-managed keys, public access blocked, refusing
// requests not made over TLS, and expiring objects under prefix after
// days. Like the table, it and its TLS policy are kept when the stack is
// deleted: a record kept in the table may point to an object in it.
func newBucket(scope constructs.Construct, id, prefix string, days int) awss3.Bucket {
	b := awss3.NewBucket(scope, jsii.String(id), &awss3.BucketProps{
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:         jsii.String("ExpireResults"),
			Enabled:    jsii.Bool(true),
			Prefix:     jsii.String(prefix),
			Expiration: awscdk.Duration_Days(jsii.Number(days)),
		}},
	})
	// The TLS-only policy stays with the bucket it guards.
	b.Policy().Node().DefaultChild().(awscdk.CfnResource).ApplyRemovalPolicy(awscdk.RemovalPolicy_RETAIN, nil)
	return b
}

// resolveBlobs fills in s's bucket settings from p, once s.expiry is
// known, and checks them: the lifetime against the record expiry, the
// prefix's form. Either set without the bucket is refused: it would
// configure nothing.
func (s *settings) resolveBlobs(p *WorkerProps, label func(field string) string) error {
	if !s.blobs {
		for _, f := range []struct {
			field string
			set   bool
		}{{"BlobExpiryDays", p.BlobExpiryDays != 0}, {"BlobPrefix", p.BlobPrefix != ""}} {
			if field := f.field; f.set {
				return &SettingError{Field: field, Msg: fmt.Sprintf("%s is set, but the bucket it would configure is left out (%s); unset it, or deploy the bucket",
					label(field), label("DisableBlobs"))}
			}
		}
		return nil
	}
	s.blobDays = or(p.BlobExpiryDays, blobExpiryDays(s.expiry))
	if err := checkBlobExpiry(s.blobDays, s.expiry, label); err != nil {
		return err
	}
	if w := blobExpiryWarning(s.blobDays, s.expiry, label); w != "" {
		s.warnings = append(s.warnings, warning{WarningResultExpiry, w})
	}
	s.blobPrefix = or(p.BlobPrefix, defaultBlobPrefix)
	return checkBlobPrefix(s.blobPrefix, label)
}
