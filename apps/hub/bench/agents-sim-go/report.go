package main

import (
	"encoding/json"
	"strings"
	"time"

	"flotilla.dev/bench/agents-sim/agentpb"
)

// A report template is a RunReport JSON that the engine built (the bench
// writes them) for an assignment whose fields were these markers; filling
// them in gives the report the engine would build for a successful run.
const (
	markProjectName      = "__PROJECT_NAME__"
	markProjectNamespace = "__PROJECT_NAMESPACE__"
	markClusterName      = "__CLUSTER_NAME__"
	markClusterGroup     = "__CLUSTER_GROUP__"
	markSource           = "__SOURCE__"
	markTag              = "__TAG__"
	markDigest           = "__DIGEST__"
	markNow              = "__NOW__"
)

type reportTemplates struct {
	apply, deletion string
}

// fill gives the report of a successful run of x: its deletion when x deletes, else its apply.
func (t reportTemplates) fill(x *agentpb.Assignment, now time.Time) string {
	template := t.apply
	if x.Delete {
		template = t.deletion
	}
	return strings.NewReplacer(
		markProjectName, jsonText(x.ProjectName),
		markProjectNamespace, jsonText(x.ProjectNamespace),
		markClusterName, jsonText(x.ClusterName),
		markClusterGroup, jsonText(x.ClusterGroup),
		markSource, jsonText(x.Repository),
		markTag, jsonText(x.Tag),
		markDigest, jsonText(x.Digest),
		markNow, now.UTC().Format("2006-01-02T15:04:05.000Z"),
	).Replace(template)
}

// jsonText is s escaped for the inside of a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
