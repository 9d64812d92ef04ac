package streams

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
)

// Region is the region the clients sign for, and the records' awsRegion.
const Region = "us-east-1"

// invokeIdentity is the role Lambda would invoke the function with: a
// Kinesis record's invokeIdentityArn.
const invokeIdentity = "arn:aws:iam::123456789012:role/idemq-stream-function"

// credentials of the local servers; DynamoDB Local keeps a database per
// access key and region, so the table and its stream are read with the
// same ones (dynamotest's).
var local = credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", "")

// NewKinesisClient returns a client for the Kinesis server (moto) at
// endpoint.
func NewKinesisClient(endpoint string) *kinesis.Client {
	return kinesis.New(kinesis.Options{Region: Region, BaseEndpoint: aws.String(endpoint), Credentials: local})
}

// NewDynamoDBClients returns the clients of DynamoDB Local at endpoint:
// its tables and its tables' streams.
func NewDynamoDBClients(endpoint string) (*dynamodb.Client, *dynamodbstreams.Client) {
	return dynamodb.New(dynamodb.Options{Region: Region, BaseEndpoint: aws.String(endpoint), Credentials: local}),
		dynamodbstreams.New(dynamodbstreams.Options{Region: Region, BaseEndpoint: aws.String(endpoint), Credentials: local})
}
