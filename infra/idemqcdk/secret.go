package idemqcdk

import (
	"fmt"
	"regexp"
	"strings"

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

// importSecret is the secret ref names, checked by checkSecretRef: by its
// complete ARN, or by its name in the stack's account and region.
func importSecret(scope constructs.Construct, ref string) awssecretsmanager.ISecret {
	if strings.HasPrefix(ref, "arn:") {
		return awssecretsmanager.Secret_FromSecretCompleteArn(scope, jsii.String("ProviderApiKeySecret"), jsii.String(ref))
	}
	return awssecretsmanager.Secret_FromSecretNameV2(scope, jsii.String("ProviderApiKeySecret"), jsii.String(ref))
}

// secretID is how the function names secret to Secrets Manager: its
// complete ARN, or, for a secret imported by name, its name (the ARN CDK
// knows then lacks the six-character suffix).
func secretID(secret awssecretsmanager.ISecret) *string {
	if arn := secret.SecretFullArn(); arn != nil {
		return arn
	}
	return secret.SecretName()
}
