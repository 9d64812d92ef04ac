package idemqcdk

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// workerPackage is the worker's main package, relative to
// StackProps.ModuleDir.
const workerPackage = "./lambda"

// StackProps configures NewStack.
type StackProps struct {
	awscdk.StackProps
	// ModuleDir is the Go module holding workerPackage, built into the
	// function at synth. Required unless the idemq:bootstrapDir context key
	// names a directory holding a bootstrap built elsewhere.
	ModuleDir string
}

// NewStack adds the stack this repository's cdk.json deploys: a Worker whose
// settings come from the idemq:* context keys (cdk.json's "context", or -c
// key=value), with the URLs of the queue and the dead-letter queue, the
// table's name, the function's name and ARN, and the result bucket's name
// (unless idemq:blobs is false) as outputs.
// idemq:providerUrl is required. With idemq:frontDoor true, the worker's
// HTTP front door is added (FrontDoor) and its function URL is an output
// too. With
// idemq:providerApiKeySecret set, the function reads the provider's API key
// from that secret, and with idemq:providerApiKeySecretKmsKey set too, may
// decrypt it with that KMS key; with idemq:alarmTopicArn set, every alarm
// notifies that SNS topic. The stack keeps what v0.2.0 deployed
// (WorkerProps.KeepV020): the record table a TableV2, the redrive managed
// policy an output. A setting that cannot be deployed is returned as a
// *SettingError naming its context key, before anything is added to scope.
func NewStack(scope constructs.Construct, id *string, props *StackProps) (awscdk.Stack, error) {
	if props == nil {
		props = &StackProps{}
	}
	c, err := readContext(scope.Node())
	if err != nil {
		return nil, err
	}
	// The reference worker cannot start without its provider: an empty
	// URL would deploy a function that fails every start-up while the
	// queue drains into the dead-letter queue.
	if c.props.ProviderURL == "" {
		return nil, &SettingError{Field: "ProviderURL", Msg: fmt.Sprintf(
			"%s is empty or unset: the worker needs its model provider's OpenAI-compatible base URL, like https://api.openai.com/v1 (cdk.json ships that one)",
			contextLabel("ProviderURL"))}
	}
	// The reference stack keeps what v0.2.0 deployed: its table (a
	// TableV2) and its redrive policy (an output, which an operator may
	// have attached).
	c.props.KeepV020 = true
	s, err := c.props.resolve(contextLabel)
	if err != nil {
		return nil, err
	}
	if err := checkSecretRef(c.apiKeySecret, contextLabel); err != nil {
		return nil, err
	}
	if err := checkSecretKMSKey(c.apiKeyKMSKey, c.apiKeySecret); err != nil {
		return nil, err
	}
	if err := checkAlarmTopic(c.alarmTopicArn); err != nil {
		return nil, err
	}
	if c.props.Code, err = stackCode(c.bootstrapDir, props.ModuleDir, s.arch); err != nil {
		return nil, err
	}

	stack := awscdk.NewStack(scope, id, &props.StackProps)
	if c.apiKeySecret != "" {
		c.props.ProviderAPIKeySecret = importSecret(stack, c.apiKeySecret, c.apiKeyKMSKey)
	}
	if c.alarmTopicArn != "" {
		c.props.AlarmActions = []awscloudwatch.IAlarmAction{topicAction(stack, c.alarmTopicArn)}
	}
	w := newWorker(stack, "Worker", &c.props, s)
	for _, o := range []struct {
		id, description string
		value           *string
	}{
		{"QueueUrl", "Send the worker's messages to this queue.", w.Queue.QueueUrl()},
		{"QueueArn", "The queue's ARN: the destination of a redrive.", w.Queue.QueueArn()},
		{"DeadLetterQueueUrl", "Messages that failed every receive they had.", w.DeadLetterQueue.QueueUrl()},
		{"DeadLetterQueueArn", "The dead-letter queue's ARN: the source of a redrive.", w.DeadLetterQueue.QueueArn()},
		{"RedrivePolicyArn", "Attach this managed policy to whoever redrives the dead-letter queue.", w.RedrivePolicy.ManagedPolicyArn()},
		{"TableName", "The idempotency records.", w.Table.TableName()},
		{"FunctionName", "The worker function.", w.Function.FunctionName()},
		{"FunctionArn", "The worker function's ARN.", w.Function.FunctionArn()},
	} {
		awscdk.NewCfnOutput(stack, jsii.String(o.id), &awscdk.CfnOutputProps{Value: o.value, Description: jsii.String(o.description)})
	}
	if w.FrontDoor != nil {
		awscdk.NewCfnOutput(stack, jsii.String("FrontDoorUrl"), &awscdk.CfnOutputProps{
			Value: w.FrontDoor.URL.Url(), Description: jsii.String("POST requests to <url>requests with an Idempotency-Key; GET <url>requests/{key} (docs/frontdoor.md)."),
		})
	}
	if w.Bucket != nil {
		awscdk.NewCfnOutput(stack, jsii.String("BlobBucketName"), &awscdk.CfnOutputProps{
			Value: w.Bucket.BucketName(), Description: jsii.String("Results too large for a record, under " + w.BlobPrefix + "."),
		})
	}
	return stack, nil
}

// stackCode is the prebuilt bootstrap in bootstrapDir if set, or else
// workerPackage built from moduleDir now (GoBuild.BuildDir), for arch.
// Either way the asset is a folder holding bootstrap alone, which is not
// an executable for another architecture.
func stackCode(bootstrapDir, moduleDir string, arch architecture) (awslambda.Code, error) {
	if bootstrapDir != "" {
		if err := checkBootstrapDir(bootstrapDir); err != nil {
			return nil, &SettingError{Msg: fmt.Sprintf("%s: %v; build it there or unset %s to build %s at synth",
				ctxBootstrapDir, err, ctxBootstrapDir, workerPackage)}
		}
		if err := checkBootstrapArch(bootstrapDir, arch); err != nil {
			return nil, &SettingError{Field: "Architecture", Msg: fmt.Sprintf("%s: %v (%s)", ctxBootstrapDir, err, contextLabel("Architecture"))}
		}
		return awslambda.Code_FromAsset(jsii.String(bootstrapDir), nil), nil
	}
	if moduleDir == "" {
		return nil, &SettingError{Msg: "StackProps.ModuleDir is empty and " + ctxBootstrapDir + " is unset: nothing to deploy as the function"}
	}
	if st, err := os.Stat(filepath.Join(moduleDir, workerPackage)); err != nil || !st.IsDir() {
		abs, _ := filepath.Abs(moduleDir)
		return nil, &SettingError{Msg: fmt.Sprintf("the worker's package %s is not in %s, so there is nothing to build; set %s to a directory holding a built bootstrap",
			workerPackage, abs, ctxBootstrapDir)}
	}
	dir, err := (&GoBuild{ModuleDir: moduleDir, Package: workerPackage, Arch: arch.goarch}).BuildDir()
	if err != nil {
		return nil, err
	}
	return awslambda.Code_FromAsset(jsii.String(dir), nil), nil
}
