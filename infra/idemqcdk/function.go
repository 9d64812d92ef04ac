package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// newFunction is the worker function (provided.al2023 on s.arch, handler
// bootstrap) with its own role, which holds no managed policy, and its own
// log group, traced as s.tracing says.
func newFunction(scope constructs.Construct, code awslambda.Code, s settings, env map[string]*string) (awslambda.Function, awsiam.Role, awslogs.LogGroup) {
	logs := awslogs.NewLogGroup(scope, jsii.String("Logs"), &awslogs.LogGroupProps{
		Retention: awslogs.RetentionDays_ONE_MONTH,
	})
	role := awsiam.NewRole(scope, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("idemq worker: its record table, its queue and its log group, nothing else."),
	})
	fn := awslambda.NewFunction(scope, jsii.String("Function"), &awslambda.FunctionProps{
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: s.arch.lambdaArchitecture(),
		Handler:      jsii.String("bootstrap"),
		Code:         code,
		Timeout:      seconds(s.timeout),
		MemorySize:   jsii.Number(s.memoryMB),
		Role:         role,
		LogGroup:     logs,
		Environment:  &env,
		Tracing:      s.activeTracing(),
	})
	s.trace(fn, role)
	return fn, role, logs
}
