package idemqcdk

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// An ARN's partition, region and account, as AWS spells them.
const (
	arnPartition = `aws(-[a-z]+)*`
	arnRegion    = `[a-z]{2,}(-[a-z]+)+-[0-9]+`
	arnAccount   = `[0-9]{12}`
)

var (
	// secretName is what Secrets Manager allows in a secret's name.
	secretName = regexp.MustCompile(`^[A-Za-z0-9/_+=.@-]{1,512}$`)
	// secretARN is a secret's complete ARN: its name, then the hyphen and
	// six characters Secrets Manager adds.
	secretARN = regexp.MustCompile(`^arn:` + arnPartition + `:secretsmanager:` + arnRegion + `:` + arnAccount +
		`:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$`)
	// kmsKeyARN is a KMS key's ARN: its key ID, or a multi-Region key's
	// mrk- ID, after key/ (an alias's ARN names no key a policy can
	// allow).
	kmsKeyARN = regexp.MustCompile(`^arn:` + arnPartition + `:kms:` + arnRegion + `:` + arnAccount +
		`:key/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32})$`)
)

// checkSecretRef accepts "" (no secret), a secret's name, or its complete
// ARN; the error names the setting by label("ProviderAPIKeySecret").
func checkSecretRef(ref string, label func(field string) string) error {
	bad := func(format string, args ...any) error {
		return &SettingError{Field: "ProviderAPIKeySecret", Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case ref == "":
		return nil
	case strings.HasPrefix(ref, "arn:"):
		if !secretARN.MatchString(ref) {
			return bad("%s %q is not a secret's complete ARN (arn:aws:secretsmanager:REGION:ACCOUNT:secret:NAME-AbCdEf, "+
				"ending in the six characters Secrets Manager adds to the name); give the complete ARN, or the name of a secret in the stack's account and region",
				label("ProviderAPIKeySecret"), ref)
		}
	case !secretName.MatchString(ref):
		return bad("%s %q is neither a secret's name (1 to 512 letters, digits and /_+=.@-) nor its ARN",
			label("ProviderAPIKeySecret"), ref)
	}
	return nil
}

// checkSecretKMSKey accepts "" (the secret is encrypted with
// aws/secretsmanager, which needs no grant) or the ARN of the KMS key
// encrypting the secret secretRef names, checked by checkSecretRef; the
// error names the context keys.
func checkSecretKMSKey(keyARN, secretRef string) error {
	bad := func(format string, args ...any) error {
		return &SettingError{Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case keyARN == "":
		return nil
	case !kmsKeyARN.MatchString(keyARN):
		return bad("%s %q is not a KMS key's ARN (arn:aws:kms:REGION:ACCOUNT:key/ID, the ID such as 1234abcd-12ab-34cd-56ef-1234567890ab or mrk-…); "+
			"give the ARN of the key that encrypts the secret, not an alias or the key ID alone, or leave it empty for a secret encrypted with aws/secretsmanager",
			ctxProviderAPIKeySecretKMSKey, keyARN)
	case secretRef == "":
		return bad("%s is set but %s is not: the key is only used to read that secret; set %s, or leave %s empty",
			ctxProviderAPIKeySecretKMSKey, contextLabel("ProviderAPIKeySecret"), contextLabel("ProviderAPIKeySecret"), ctxProviderAPIKeySecretKMSKey)
	case strings.HasPrefix(secretRef, "arn:") && arnRegionOf(keyARN) != arnRegionOf(secretRef):
		return bad("%s %q is in %s, but the secret of %s is in %s, and Secrets Manager encrypts a secret only with a key of its own region; give the ARN of the key that encrypts the secret",
			ctxProviderAPIKeySecretKMSKey, keyARN, arnRegionOf(keyARN), contextLabel("ProviderAPIKeySecret"), arnRegionOf(secretRef))
	}
	return nil
}

// arnRegionOf is the region of an ARN checked by one of the patterns above.
func arnRegionOf(arn string) string {
	return strings.Split(arn, ":")[3]
}

// importSecret is the secret ref names, checked by checkSecretRef: by its
// complete ARN, or by its name in the stack's account and region; encrypted
// with the KMS key whose ARN is keyARN, checked by checkSecretKMSKey, unless
// keyARN is "".
func importSecret(scope constructs.Construct, ref, keyARN string) awssecretsmanager.ISecret {
	attrs := &awssecretsmanager.SecretAttributes{}
	if strings.HasPrefix(ref, "arn:") {
		attrs.SecretCompleteArn = jsii.String(ref)
	} else {
		// What Secret_FromSecretNameV2 imports, which takes no key.
		attrs.SecretPartialArn = awscdk.Stack_Of(scope).FormatArn(&awscdk.ArnComponents{
			Service:      jsii.String("secretsmanager"),
			Resource:     jsii.String("secret"),
			ResourceName: jsii.String(ref),
			ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
		})
	}
	if keyARN != "" {
		attrs.EncryptionKey = awskms.Key_FromKeyArn(scope, jsii.String("ProviderApiKeySecretKey"), jsii.String(keyARN))
	}
	return awssecretsmanager.Secret_FromSecretAttributes(scope, jsii.String("ProviderApiKeySecret"), attrs)
}

// secretID is how the function names secret to Secrets Manager: its
// complete ARN, or, for a secret imported by name or partial ARN, its name
// (the ARN CDK knows then lacks the six-character suffix). The name is read
// from the partial ARN where it can be: for a secret imported by partial
// ARN, CDK's SecretName drops a last hyphenated part of six characters as
// if Secrets Manager had added it ("openai-apikey" would be "openai"), and
// is a token for a partial ARN holding tokens.
func secretID(secret awssecretsmanager.ISecret) *string {
	if arn := secret.SecretFullArn(); arn != nil {
		return arn
	}
	if _, name, ok := strings.Cut(*secret.SecretArn(), ":secret:"); ok && name != "" {
		return jsii.String(name)
	}
	return secret.SecretName()
}
