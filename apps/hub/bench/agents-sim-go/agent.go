package main

import (
	"context"
	cryptorand "crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"math/rand/v2"
	"sync"
	"time"

	"flotilla.dev/bench/agents-sim/agentpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// the hub's limit on one message (AGENT_PROTOCOL_LIMITS.maxMessageBytes)
const maxMessageBytes = 4 << 20

// agent is one simulated agent: one connection, one stream at a time, the
// assignments it holds and the reports the hub has not acknowledged yet.
type agent struct {
	index    int
	address  string
	tls      *tls.Config
	reports  reportTemplates
	applyFor func() time.Duration
	fleet    *fleet

	conn    *grpc.ClientConn
	cancel  context.CancelFunc
	mu      sync.Mutex // guards what follows: stream sends are not safe from two goroutines
	stream  agentpb.AgentService_ConnectClient
	unacked map[string]*agentpb.RunReport
	closed  bool
}

// run keeps a stream open: a stream that fails, or that the hub ends, is
// opened again after a jittered pause, as a real agent does.
func (a *agent) run() {
	conn, err := grpc.NewClient(a.address,
		grpc.WithTransportCredentials(credentials.NewTLS(a.tls)),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageBytes)),
		// small buffers: ten thousand connections share this process
		grpc.WithReadBufferSize(8<<10),
		grpc.WithWriteBufferSize(8<<10),
		grpc.WithSharedWriteBuffer(true),
	)
	must(err)
	ctx, cancel := context.WithCancel(context.Background())
	a.mu.Lock()
	a.conn, a.cancel = conn, cancel
	a.mu.Unlock()
	for ctx.Err() == nil {
		a.serve(ctx)
		time.Sleep(200*time.Millisecond + rand.N(800*time.Millisecond))
	}
}

// serve opens one stream, says hello with the reports still unacknowledged, and handles the hub's messages until the stream ends.
func (a *agent) serve(ctx context.Context) {
	stream, err := agentpb.NewAgentServiceClient(a.conn).Connect(ctx)
	if err != nil {
		return
	}
	a.mu.Lock()
	a.stream = stream
	hello := &agentpb.Hello{AgentVersion: "sim-go-1", KubeVersion: "v1.36.0"}
	for _, r := range a.unacked {
		hello.BufferedReports = append(hello.BufferedReports, r)
	}
	err = stream.Send(&agentpb.ConnectRequest{Body: &agentpb.ConnectRequest_Hello{Hello: hello}})
	a.mu.Unlock()
	if err != nil {
		return
	}
	held := map[string]*agentpb.Assignment{}
	for {
		m, err := stream.Recv()
		if err != nil {
			a.mu.Lock()
			a.stream = nil
			a.mu.Unlock()
			return
		}
		a.handle(m, held)
	}
}

func (a *agent) handle(m *agentpb.ConnectResponse, held map[string]*agentpb.Assignment) {
	switch body := m.Body.(type) {
	case *agentpb.ConnectResponse_Assignments:
		clear(held)
		for _, x := range body.Assignments.Assignments {
			held[x.TargetId] = x
			a.fleet.holds(a.index, x.Digest)
		}
		a.fleet.greet(a.index)
	case *agentpb.ConnectResponse_Change:
		switch change := body.Change.Change.(type) {
		case *agentpb.AssignmentChange_Assignment:
			x := change.Assignment
			held[x.TargetId] = x
			a.fleet.holds(a.index, x.Digest)
			a.send(&agentpb.ConnectRequest{Body: &agentpb.ConnectRequest_Ack{Ack: &agentpb.Ack{TargetId: x.TargetId, Generation: x.Generation}}})
			time.AfterFunc(a.applyFor(), func() { a.reportApplied(x) })
		case *agentpb.AssignmentChange_RemovedTargetId:
			delete(held, change.RemovedTargetId)
		}
	case *agentpb.ConnectResponse_ReportAck:
		a.mu.Lock()
		delete(a.unacked, body.ReportAck.ReportId)
		a.mu.Unlock()
	case *agentpb.ConnectResponse_DryRunDiff:
		// as an agent that predates dry-run diffs
		a.send(&agentpb.ConnectRequest{Body: &agentpb.ConnectRequest_Diff{Diff: &agentpb.DiffResult{RequestId: body.DryRunDiff.RequestId, Unsupported: true}}})
	}
}

// reportApplied sends the report of a run that succeeded, and keeps it until the hub acknowledges it.
func (a *agent) reportApplied(x *agentpb.Assignment) {
	report := &agentpb.RunReport{TargetId: x.TargetId, Generation: x.Generation, ReportId: newReportID(), ReportJson: a.reports.fill(x, time.Now())}
	a.mu.Lock()
	a.unacked[report.ReportId] = report
	a.mu.Unlock()
	a.send(&agentpb.ConnectRequest{Body: &agentpb.ConnectRequest_Report{Report: report}})
}

func (a *agent) heartbeat() {
	a.send(&agentpb.ConnectRequest{Body: &agentpb.ConnectRequest_Heartbeat{Heartbeat: &agentpb.Heartbeat{SentAt: timestamppb.Now()}}})
}

// send writes to the open stream; with none open the message is dropped (a report stays buffered for the next hello).
func (a *agent) send(m *agentpb.ConnectRequest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stream != nil && !a.closed {
		_ = a.stream.Send(m)
	}
}

func (a *agent) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.cancel != nil {
		a.cancel()
		a.conn.Close()
	}
}

func newReportID() string {
	var b [16]byte
	_, _ = cryptorand.Read(b[:])
	return hex.EncodeToString(b[:])
}
