package idemqcdk_test

import (
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// capacityContext runs the function on a capacity provider in two subnets
// with one security group, with the memory it needs.
func capacityContext(extra map[string]any) map[string]any {
	c := map[string]any{
		"idemq:capacitySubnetIds":        "subnet-0a1b2c3d,subnet-4e5f6a7b",
		"idemq:capacitySecurityGroupIds": []any{"sg-0123456789abcdef0"},
		"idemq:memoryMB":                 2048,
	}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func TestCapacityProviderTemplate(t *testing.T) {
	tpl := synth(t, capacityContext(map[string]any{"idemq:capacityMaxConcurrency": 16, "idemq:capacityMemoryGiBPerVCpu": 4}))
	check(t, "one capacity provider, arm64, in the subnets and security group given", func() {
		tpl.ResourceCountIs(jsii.String("AWS::Lambda::CapacityProvider"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::CapacityProvider"), obj{
			"VpcConfig": obj{
				"SubnetIds":        arr{"subnet-0a1b2c3d", "subnet-4e5f6a7b"},
				"SecurityGroupIds": arr{"sg-0123456789abcdef0"},
			},
			"InstanceRequirements": obj{"Architectures": arr{"arm64"}},
		})
	})
	check(t, "the function is on it, 16 invocations per environment, 4 GiB per vCPU", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"Architectures": arr{"arm64"},
			"MemorySize":    2048,
			"CapacityProviderConfig": obj{"LambdaManagedInstancesCapacityProviderConfig": obj{
				"CapacityProviderArn":                   assertions.Match_AnyValue(),
				"PerExecutionEnvironmentMaxConcurrency": 16,
				"ExecutionEnvironmentMemoryGiBPerVCpu":  4,
			}},
		})
	})
	// Defaults: 10 per environment, 2 GiB per vCPU.
	tpl = synth(t, capacityContext(nil))
	check(t, "defaults", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{
			"CapacityProviderConfig": obj{"LambdaManagedInstancesCapacityProviderConfig": obj{
				"PerExecutionEnvironmentMaxConcurrency": 10,
				"ExecutionEnvironmentMemoryGiBPerVCpu":  2,
			}},
		})
	})
	// Off by default.
	tpl = synth(t, nil)
	check(t, "no capacity provider by default", func() {
		tpl.ResourceCountIs(jsii.String("AWS::Lambda::CapacityProvider"), jsii.Number(0))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj{"CapacityProviderConfig": assertions.Match_Absent()})
	})
	// Both: provisioned pollers feeding a function on managed instances.
	tpl = synth(t, capacityContext(map[string]any{"idemq:minPollers": 4, "idemq:maxConcurrency": 0}))
	check(t, "pollers and capacity provider together", func() {
		tpl.ResourceCountIs(jsii.String("AWS::Lambda::CapacityProvider"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
			"ProvisionedPollerConfig": obj{"MinimumPollers": 4, "MaximumPollers": 200},
		})
	})
}

func TestRejectedCapacityProvider(t *testing.T) {
	wantRejected(t, []rejectedCase{
		{"no subnets", map[string]any{"idemq:capacitySecurityGroupIds": "sg-0123456789abcdef0", "idemq:memoryMB": 2048},
			"CapacityProvider.SubnetIDs", "idemq:capacitySubnetIds"},
		{"no security groups", map[string]any{"idemq:capacitySubnetIds": "subnet-0a1b2c3d", "idemq:memoryMB": 2048},
			"CapacityProvider.SecurityGroupIDs", "idemq:capacitySecurityGroupIds"},
		{"only a concurrency", map[string]any{"idemq:capacityMaxConcurrency": 8},
			"CapacityProvider.SubnetIDs", "idemq:capacitySubnetIds"},
		{"a VPC id as a subnet", capacityContext(map[string]any{"idemq:capacitySubnetIds": "vpc-0a1b2c3d"}),
			"CapacityProvider.SubnetIDs", "idemq:capacitySubnetIds"},
		{"six security groups", capacityContext(map[string]any{"idemq:capacitySecurityGroupIds": "sg-1,sg-2,sg-3,sg-4,sg-5,sg-6"}),
			"CapacityProvider.SecurityGroupIDs", "idemq:capacitySecurityGroupIds"},
		{"memory under 2 GB", capacityContext(map[string]any{"idemq:memoryMB": 1024}),
			"MemoryMB", "idemq:memoryMB"},
		{"concurrency over 1600", capacityContext(map[string]any{"idemq:capacityMaxConcurrency": 1601}),
			"CapacityProvider.MaxConcurrency", "idemq:capacityMaxConcurrency"},
		{"a memory ratio of 3", capacityContext(map[string]any{"idemq:capacityMemoryGiBPerVCpu": 3}),
			"CapacityProvider.MemoryGiBPerVCpu", "idemq:capacityMemoryGiBPerVCpu"},
		{"subnets as a number", capacityContext(map[string]any{"idemq:capacitySubnetIds": 42}),
			"CapacityProvider.SubnetIDs", "idemq:capacitySubnetIds"},
	})
}
