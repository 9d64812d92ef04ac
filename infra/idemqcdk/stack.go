package idemqcdk

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// WorkerPackage is the worker's main package, relative to
// StackProps.ModuleDir.
const WorkerPackage = "./lambda"

// StackProps configures NewStack.
type StackProps struct {
	awscdk.StackProps
	// ModuleDir is the Go module holding WorkerPackage, built into the
	// function at synth. Required unless the idemq:bootstrapDir context key
	// names a directory holding a bootstrap built elsewhere.
	ModuleDir string
}

// NewStack adds the stack this repository's cdk.json deploys: a Worker whose
// settings come from the idemq:* context keys (cdk.json's "context", or -c
// key=value), with the queue URL and the table name as outputs. With
// idemq:providerApiKeySecret set, the function reads the provider's API key
// from that secret, and with idemq:providerApiKeySecretKmsKey set too, may
// decrypt it with that KMS key; with idemq:alarmTopicArn set, the
// dead-letter alarm notifies that SNS topic. A setting that cannot be
// deployed is returned as a *SettingError naming its context key, before
// anything is added to scope.
func NewStack(scope constructs.Construct, id string, props *StackProps) (awscdk.Stack, error) {
	if props == nil {
		props = &StackProps{}
	}
	c, err := readContext(scope.Node())
	if err != nil {
		return nil, err
	}
	if c.providerURL != "" {
		c.props.Environment = map[string]string{EnvProviderURL: c.providerURL}
	}
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
	if c.props.Code, err = stackCode(c.bootstrapDir, props.ModuleDir); err != nil {
		return nil, err
	}

	stack := awscdk.NewStack(scope, jsii.String(id), &props.StackProps)
	if c.apiKeySecret != "" {
		c.props.ProviderAPIKeySecret = importSecret(stack, c.apiKeySecret, c.apiKeyKMSKey)
	}
	w := newWorker(stack, "Worker", &c.props, s)
	if c.alarmTopicArn != "" {
		notifyTopic(stack, w.DeadLetterAlarm, c.alarmTopicArn)
	}
	awscdk.NewCfnOutput(stack, jsii.String("QueueUrl"), &awscdk.CfnOutputProps{
		Value:       w.Queue.QueueUrl(),
		Description: jsii.String("Send the worker's messages to this queue."),
	})
	awscdk.NewCfnOutput(stack, jsii.String("TableName"), &awscdk.CfnOutputProps{
		Value:       w.Table.TableName(),
		Description: jsii.String("The idempotency records."),
	})
	return stack, nil
}

// stackCode is the prebuilt bootstrap in bootstrapDir if set, or else
// WorkerPackage built from moduleDir.
func stackCode(bootstrapDir, moduleDir string) (awslambda.Code, error) {
	if bootstrapDir != "" {
		if _, err := os.Stat(filepath.Join(bootstrapDir, "bootstrap")); err != nil {
			return nil, &SettingError{Msg: fmt.Sprintf("%s %s holds no bootstrap executable; build it there or unset %s to build %s at synth",
				ctxBootstrapDir, bootstrapDir, ctxBootstrapDir, WorkerPackage)}
		}
		return awslambda.Code_FromAsset(jsii.String(bootstrapDir), nil), nil
	}
	if moduleDir == "" {
		return nil, &SettingError{Msg: "StackProps.ModuleDir is empty and " + ctxBootstrapDir + " is unset: nothing to deploy as the function"}
	}
	if st, err := os.Stat(filepath.Join(moduleDir, WorkerPackage)); err != nil || !st.IsDir() {
		abs, _ := filepath.Abs(moduleDir)
		return nil, &SettingError{Msg: fmt.Sprintf("the worker's package %s is not in %s, so there is nothing to build; set %s to a directory holding a built bootstrap",
			WorkerPackage, abs, ctxBootstrapDir)}
	}
	return GoCode(moduleDir, WorkerPackage), nil
}
