package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// The actions the function's role is allowed, each on one resource. They are
// listed here rather than granted with CDK's grant methods, which allow
// more (grantReadWriteData adds batch, query and scan actions;
// grantConsumeMessages adds sqs:ChangeMessageVisibility).
var (
	// tableActions are the record store's calls on the record table, as the
	// worker makes them: PutItem claims, UpdateItem completes and extends a
	// lease, DeleteItem releases. It never reads (dynamostore's Get is for
	// tests and operators) and completes with no extra writes, so needs
	// no TransactWriteItems (whose items would need these same actions).
	tableActions = []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}
	// pollActions are what Lambda's event source needs to poll the queue
	// for the function (AWSLambdaSQSQueueExecutionRole's actions).
	pollActions = []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"}
	// backoffActions are the in-progress back-off's calls on the queue.
	backoffActions = []string{"sqs:ChangeMessageVisibility"}
	// blobActions are the blob store's calls (s3blob) on the objects
	// under the blob prefix: PutObject offloads a result, GetObject replays it.
	// No s3:ListBucket, so S3 answers a missing object with 403, not 404:
	// the replay fails either way. No delete: the lifecycle rule expires.
	blobActions = []string{"s3:PutObject", "s3:GetObject"}
	// logActions let the function write to its own log group.
	logActions = []string{"logs:CreateLogStream", "logs:PutLogEvents"}
	// mappingActions let the worker read its function's event source
	// mappings once at start-up, to say when one lacks
	// ReportBatchItemFailures. The action takes no narrower resource (the
	// Service Authorization Reference names no resource type for it): "*".
	mappingActions = []string{"lambda:ListEventSourceMappings"}
)

// allow gives grantee the worker's permissions on the table and the queue:
// tableActions, pollActions and, with back-off, backoffActions; and
// mappingActions.
func allow(grantee awsiam.IGrantable, table awsdynamodb.ITable, queue awssqs.IQueue, backoff bool) {
	add := statementAdder(grantee)
	add("RecordTable", tableActions, table.TableArn())
	add("PollQueue", pollActions, queue.QueueArn())
	if backoff {
		add("InProgressBackoff", backoffActions, queue.QueueArn())
	}
	add("ReadMappings", mappingActions, jsii.String("*"))
}

// statementAdder adds to grantee's policy a statement allowing actions on
// one resource.
func statementAdder(grantee awsiam.IGrantable) func(sid string, actions []string, resource *string) {
	return func(sid string, actions []string, resource *string) {
		grantee.GrantPrincipal().AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String(sid),
			Actions:   jsii.Strings(actions...),
			Resources: &[]*string{resource},
		}))
	}
}

// allowLogs lets role write to its function's own log group.
func allowLogs(role awsiam.Role, logs awslogs.LogGroup) {
	statementAdder(role)("WriteLogs", logActions, logs.LogGroupArn())
}

// allowBlobs gives grantee blobActions on the objects under prefix in
// bucket (checkBlobPrefix: no wildcard in it, so prefix + "*" covers just
// those).
func allowBlobs(grantee awsiam.IGrantable, bucket awss3.IBucket, prefix string) {
	statementAdder(grantee)("ResultBlobs", blobActions, bucket.ArnForObjects(jsii.String(prefix+"*")))
}

// decryptActions are what reading a secret needs of the customer-managed
// KMS key encrypting it.
var decryptActions = []string{"kms:Decrypt"}

// allowSecret lets the function read the provider's API key secret. This
// one is CDK's grant method, unlike the grants above: only the secret knows
// the ARN its policy must name (an import by name ends in -??????, matching
// the suffix Secrets Manager adds). It allows secretsmanager:GetSecretValue
// and secretsmanager:DescribeSecret on the secret.
//
// A secret that carries its KMS key (ISecret.EncryptionKey) needs
// kms:Decrypt on that key too. GrantRead means to grant it, but for a key
// imported by ARN it adds the grant nowhere: it grants a
// kms.ViaServicePrincipal, which holds no policy, and the key's policy,
// which CDK cannot change for an imported key (aws/aws-cdk#10160). So
// allowSecret adds kms:Decrypt on the key to the role itself, with the
// kms:ViaService condition GrantRead uses: only through Secrets Manager, in
// the secret's region (GrantRead takes the stack's, though a secret imported
// by ARN may be elsewhere). For a key of the user's own stack, GrantRead's
// grant in the key's policy comes on top.
func allowSecret(fn awslambda.Function, secret awssecretsmanager.ISecret) {
	secret.GrantRead(fn, nil)
	key := secret.EncryptionKey()
	if key == nil {
		return
	}
	fn.Role().AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("DecryptSecret"),
		Actions:   jsii.Strings(decryptActions...),
		Resources: &[]*string{key.KeyArn()},
		Conditions: &map[string]any{
			"StringEquals": map[string]any{"kms:ViaService": "secretsmanager." + *secret.Env().Region + ".amazonaws.com"},
		},
	}))
}
