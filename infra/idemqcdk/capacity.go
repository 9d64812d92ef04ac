package idemqcdk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Limits of a Lambda capacity provider (Lambda Managed Instances) and of a
// function on one, as the Lambda API and the pinned CDK check them.
const (
	maxCapacitySubnets        = 16
	maxCapacitySecurityGroups = 5
	// maxPerEnvironmentConcurrency bounds the invocations one execution
	// environment runs at once (PerExecutionEnvironmentMaxConcurrency).
	maxPerEnvironmentConcurrency = 1600
	// defaultPerEnvironmentConcurrency is the CDK's default.
	defaultPerEnvironmentConcurrency = 10
	// minCapacityMemoryMB is the least memory of a function on a
	// capacity provider (2 GB per execution environment).
	minCapacityMemoryMB = 2048
	// defaultMemoryGiBPerVCpu is the CDK's (and Lambda's) default ratio.
	defaultMemoryGiBPerVCpu = 2
)

// memoryRatios are the memory-to-vCPU ratios, GiB per vCPU, Lambda offers.
var memoryRatios = []int{2, 4, 8}

// resolveCapacity checks the capacity provider's inputs; nil without one.
func (p *WorkerProps) resolveCapacity(memoryMB int, label func(field string) string) (*capacitySettings, error) {
	c := p.CapacityProvider
	if c == nil {
		return nil, nil
	}
	s := &capacitySettings{subnets: c.SubnetIDs, securityGroups: c.SecurityGroupIDs,
		maxConcurrency: or(c.MaxConcurrency, defaultPerEnvironmentConcurrency), ratio: or(c.MemoryGiBPerVCpu, defaultMemoryGiBPerVCpu)}
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case len(s.subnets) == 0:
		return nil, bad("CapacityProvider.SubnetIDs", "%s is empty: a capacity provider runs its instances in your VPC's subnets; give 1 to %d subnet IDs (subnet-...)",
			label("CapacityProvider.SubnetIDs"), maxCapacitySubnets)
	case len(s.subnets) > maxCapacitySubnets:
		return nil, bad("CapacityProvider.SubnetIDs", "%s has %d subnets; at most %d", label("CapacityProvider.SubnetIDs"), len(s.subnets), maxCapacitySubnets)
	case len(s.securityGroups) == 0:
		return nil, bad("CapacityProvider.SecurityGroupIDs", "%s is empty: give 1 to %d security group IDs (sg-...) for the capacity provider's instances",
			label("CapacityProvider.SecurityGroupIDs"), maxCapacitySecurityGroups)
	case len(s.securityGroups) > maxCapacitySecurityGroups:
		return nil, bad("CapacityProvider.SecurityGroupIDs", "%s has %d security groups; at most %d", label("CapacityProvider.SecurityGroupIDs"), len(s.securityGroups), maxCapacitySecurityGroups)
	case s.maxConcurrency < 1 || s.maxConcurrency > maxPerEnvironmentConcurrency:
		return nil, bad("CapacityProvider.MaxConcurrency", "%s %d must be from 1 to %d", label("CapacityProvider.MaxConcurrency"), s.maxConcurrency, maxPerEnvironmentConcurrency)
	case !slices.Contains(memoryRatios, s.ratio):
		return nil, bad("CapacityProvider.MemoryGiBPerVCpu", "%s %d must be 2, 4 or 8 (GiB per vCPU)", label("CapacityProvider.MemoryGiBPerVCpu"), s.ratio)
	case memoryMB < minCapacityMemoryMB:
		return nil, bad("MemoryMB", "%s %d is under %d, the least a function on a capacity provider (%s) gets; raise %s",
			label("MemoryMB"), memoryMB, minCapacityMemoryMB, label("CapacityProvider.SubnetIDs"), label("MemoryMB"))
	}
	for _, id := range s.subnets {
		if !strings.HasPrefix(id, "subnet-") && !isToken(id) {
			return nil, bad("CapacityProvider.SubnetIDs", "%s holds %q, not a subnet ID (subnet-...)", label("CapacityProvider.SubnetIDs"), id)
		}
	}
	for _, id := range s.securityGroups {
		if !strings.HasPrefix(id, "sg-") && !isToken(id) {
			return nil, bad("CapacityProvider.SecurityGroupIDs", "%s holds %q, not a security group ID (sg-...)", label("CapacityProvider.SecurityGroupIDs"), id)
		}
	}
	return s, nil
}

// newCapacityProvider makes the capacity provider, for the function's
// architecture, and puts fn on it.
func newCapacityProvider(scope constructs.Construct, fn awslambda.Function, s settings) awslambda.CapacityProvider {
	var subnets []awsec2.ISubnet
	for i, id := range s.capacity.subnets {
		subnets = append(subnets, awsec2.Subnet_FromSubnetId(scope, jsii.Sprintf("CapacitySubnet%d", i), jsii.String(id)))
	}
	var groups []awsec2.ISecurityGroup
	for i, id := range s.capacity.securityGroups {
		groups = append(groups, awsec2.SecurityGroup_FromSecurityGroupId(scope, jsii.Sprintf("CapacitySecurityGroup%d", i), jsii.String(id), nil))
	}
	cp := awslambda.NewCapacityProvider(scope, jsii.String("CapacityProvider"), &awslambda.CapacityProviderProps{
		Subnets:        &subnets,
		SecurityGroups: &groups,
		Architectures:  &[]awslambda.Architecture{s.arch.lambdaArchitecture()},
	})
	cp.AddFunction(fn, &awslambda.CapacityProviderFunctionOptions{
		PerExecutionEnvironmentMaxConcurrency: jsii.Number(s.capacity.maxConcurrency),
		ExecutionEnvironmentMemoryGiBPerVCpu:  jsii.Number(s.capacity.ratio),
	})
	return cp
}
