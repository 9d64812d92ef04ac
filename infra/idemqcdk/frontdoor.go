package idemqcdk

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
)

// The values of WorkerProps.FrontDoorScope.
const (
	// frontDoorScopeRole keeps each IAM principal's keys apart, an
	// assumed role's sessions sharing them (the default).
	frontDoorScopeRole = "role"
	// frontDoorScopeSession keeps each role session's keys apart.
	frontDoorScopeSession = "session"
)

// frontDoorTimeout is the front door's function timeout: a request is a
// claim, a send and a completion, or one or two reads.
const frontDoorTimeout = 30

// frontDoorMemoryMB is the front door's memory: it holds one request
// body (at most 255 KiB) and one result at a time per invocation.
const frontDoorMemoryMB = 256

// The front door's permissions, each on one resource, listed as the
// worker's are (access.go).
var (
	// frontTableActions are the front door's calls on the record table:
	// PutItem, UpdateItem and DeleteItem claim, complete and release its
	// own records; GetItem reads the worker's and its own for a status.
	frontTableActions = []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}
	// sendActions put a request on the worker's queue.
	sendActions = []string{"sqs:SendMessage"}
	// frontBlobActions read a result the worker offloaded.
	frontBlobActions = []string{"s3:GetObject"}
)

// FrontDoor is a Worker's HTTP front door (WorkerProps.FrontDoor): a
// second function from the worker's code in front-door mode
// (envMode=frontdoor), behind a Lambda function URL. It takes POST
// /requests with an Idempotency-Key, sends each key's request to the
// Worker's queue once, and answers GET /requests/{key} from the Worker's
// records (docs/frontdoor.md).
type FrontDoor struct {
	// Construct is the scope holding the parts.
	Construct constructs.Construct
	Function  awslambda.Function
	Role      awsiam.Role
	Logs      awslogs.LogGroup
	// URL is the function URL: AWS_IAM unless WorkerProps.FrontDoorPublic.
	URL awslambda.FunctionUrl
}

// checkFrontDoor refuses the settings a front door cannot serve:
// FrontDoorPublic without a front door. (The front door serves every key
// rule the worker does, a path into the body included.)
func checkFrontDoor(p *WorkerProps, s settings, label func(string) string) error {
	if !p.FrontDoor {
		if p.FrontDoorPublic {
			return &SettingError{Field: "FrontDoorPublic", Msg: fmt.Sprintf("%s is set without %s: there is no front door to open", label("FrontDoorPublic"), label("FrontDoor"))}
		}
		if p.FrontDoorScope != "" {
			return &SettingError{Field: "FrontDoorScope", Msg: fmt.Sprintf("%s is set without %s: there is no front door to scope keys in", label("FrontDoorScope"), label("FrontDoor"))}
		}
		return nil
	}
	switch {
	case p.FrontDoorScope != "" && p.FrontDoorScope != frontDoorScopeRole && p.FrontDoorScope != frontDoorScopeSession:
		return &SettingError{Field: "FrontDoorScope", Msg: fmt.Sprintf("%s %q: want %q (each IAM principal's keys its own) or %q (each role session's)",
			label("FrontDoorScope"), p.FrontDoorScope, frontDoorScopeRole, frontDoorScopeSession)}
	case p.FrontDoorScope != "" && p.FrontDoorPublic:
		return &SettingError{Field: "FrontDoorScope", Msg: fmt.Sprintf("%s is set with %s: a public URL carries no IAM caller, so every caller shares one key space",
			label("FrontDoorScope"), label("FrontDoorPublic"))}
	}
	return nil
}

// newFrontDoor adds to scope the front door of a Worker's queue and record
// table (and result bucket, nil without one): its function, with its own
// role and log group, from the Worker's code, and the function URL.
func newFrontDoor(scope constructs.Construct, queue awssqs.IQueue, table awsdynamodb.ITable, bucket *ResultBucket, p *WorkerProps, s settings) *FrontDoor {
	c := constructs.NewConstruct(scope, jsii.String("FrontDoor"))
	fd := &FrontDoor{Construct: c}
	env := map[string]*string{
		envMode:              jsii.String(idemqenv.FrontDoor.String()),
		envFrontDoorQueueURL: queue.QueueUrl(),
		envTable:             table.TableName(),
		envRecordExpiry:      jsii.String(s.expiry.String()),
		envClockSkew:         jsii.String(idem.DefaultClockSkew.String()),
	}
	for k, v := range requestEnv(s.request, idemqenv.FrontDoor) {
		env[k] = jsii.String(v)
	}
	if len(s.replicas) > 0 {
		env[envDynamoDBStrong] = jsii.String("true")
	}
	if bucket != nil {
		env[envBlobBucket] = bucket.Bucket.BucketName()
		env[envBlobPrefix] = jsii.String(bucket.Prefix)
	}
	fd.Logs = awslogs.NewLogGroup(c, jsii.String("Logs"), &awslogs.LogGroupProps{Retention: awslogs.RetentionDays_ONE_MONTH})
	fd.Role = awsiam.NewRole(c, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("idemq front door: sends to the worker's queue, claims and reads records, reads results, nothing else."),
	})
	fd.Function = awslambda.NewFunction(c, jsii.String("Function"), &awslambda.FunctionProps{
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: s.arch.lambdaArchitecture(),
		Handler:      jsii.String("bootstrap"),
		Code:         p.Code,
		Timeout:      awscdk.Duration_Seconds(jsii.Number(frontDoorTimeout)),
		MemorySize:   jsii.Number(frontDoorMemoryMB),
		Role:         fd.Role,
		LogGroup:     fd.Logs,
		Environment:  &env,
		Tracing:      s.activeTracing(),
	})
	s.trace(fd.Function, fd.Role) // traced as the worker is
	add := func(sid string, actions []string, resource *string) {
		fd.Role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid: jsii.String(sid), Actions: jsii.Strings(actions...), Resources: &[]*string{resource},
		}))
	}
	add("RecordTable", frontTableActions, table.TableArn())
	add("SendToQueue", sendActions, queue.QueueArn())
	add("WriteLogs", logActions, fd.Logs.LogGroupArn())
	if bucket != nil {
		add("ReadResultBlobs", frontBlobActions, bucket.Bucket.ArnForObjects(jsii.String(bucket.Prefix+"*")))
	}
	// AWS_IAM: only callers signed with SigV4 whose policy allows
	// lambda:InvokeFunctionUrl on this function get through. NONE would
	// let anyone on the internet enqueue model requests (each a billed
	// generation) and read any result whose key they guess.
	// Each IAM caller's keys are its own; a public URL names no caller,
	// and its callers share one key space.
	auth := awslambda.FunctionUrlAuthType_AWS_IAM
	if p.FrontDoorPublic {
		auth = awslambda.FunctionUrlAuthType_NONE
		fd.Function.AddEnvironment(jsii.String(envFrontDoorScope), jsii.String(idemqenv.ScopeNone), nil)
		warn(c, []warning{{warningFrontDoorPublic, fmt.Sprintf(
			"the front door's function URL has AuthType NONE: anyone who finds it can enqueue requests and read results by key (every caller shares one key space); "+
				"unset FrontDoorPublic for an AWS_IAM URL, or acknowledge %s if the URL is meant for anyone", warningFrontDoorPublic)}})
	}
	if p.FrontDoorScope == frontDoorScopeSession {
		fd.Function.AddEnvironment(jsii.String(envFrontDoorScope), jsii.String(idemqenv.ScopeIAMSession), nil)
	}
	fd.URL = fd.Function.AddFunctionUrl(&awslambda.FunctionUrlOptions{AuthType: auth})
	return fd
}
