package deploylocal

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// checkDestroyed checks that cdk destroy removed the stack, the queue and
// the function, and kept the table, the result bucket and, if spec says
// so, the dead-letter queue.
func checkDestroyed(ctx context.Context, c clients, d *deployed, endpoint string, spec stackSpec) error {
	var problems []string
	if out, err := c.cfn.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(spec.name)}); err == nil {
		for _, s := range out.Stacks {
			if s.StackStatus != "DELETE_COMPLETE" {
				problems = append(problems, fmt.Sprintf("the stack is %s", s.StackStatus))
			}
		}
	}
	if _, err := c.dynamo.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(d.table)}); err != nil {
		problems = append(problems, fmt.Sprintf("the table %s was not kept: %v", d.table, err))
	}
	if _, err := c.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(d.dlqURL)}); spec.retainedDLQ && err != nil {
		problems = append(problems, fmt.Sprintf("the dead-letter queue %s was not kept: %v", d.dlqURL, err))
	}
	if d.bucket != "" {
		if err := bucketExists(ctx, endpoint, d.bucket); err != nil {
			problems = append(problems, fmt.Sprintf("the result bucket %s was not kept: %v", d.bucket, err))
		}
	}
	if _, err := c.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(d.queueURL)}); err == nil {
		problems = append(problems, "the queue is still there")
	}
	if _, err := c.lambda.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(d.function)}); err == nil {
		problems = append(problems, "the function is still there")
	}
	if len(problems) > 0 {
		return errors.New("deploylocal: after cdk destroy: " + strings.Join(problems, "; "))
	}
	return nil
}
