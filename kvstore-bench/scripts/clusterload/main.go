// clusterload drives a 3-node KVStore cluster (Redis Cluster protocol) or an etcd cluster with the
// same closed-loop workload: N concurrent clients, each putting or getting random keys with values
// of a fixed size, for a fixed time after a warm-up; it prints one line of JSON with the rate and
// the latency percentiles. kvstore-bench/scripts/cluster-vs-etcd.sh runs it against both, in turns.
//
//	clusterload -target redis -endpoints 127.0.0.1:7001,127.0.0.1:7002 -op put -clients 50 -duration 20s
//	clusterload -target etcd  -endpoints 127.0.0.1:2379,127.0.0.1:22379 -op get -clients 50
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
)

type store interface {
	put(ctx context.Context, key string, value []byte) error
	get(ctx context.Context, key string) error
	close()
}

type redisStore struct{ c redis.UniversalClient }

func (s redisStore) put(ctx context.Context, k string, v []byte) error { return s.c.Set(ctx, k, v, 0).Err() }
func (s redisStore) get(ctx context.Context, k string) error {
	err := s.c.Get(ctx, k).Err()
	if err == redis.Nil {
		return nil
	}
	return err
}
func (s redisStore) close() { s.c.Close() }

type etcdStore struct{ cs []*clientv3.Client }

func (s etcdStore) pick() *clientv3.Client { return s.cs[rand.Intn(len(s.cs))] }
func (s etcdStore) put(ctx context.Context, k string, v []byte) error {
	_, err := s.pick().Put(ctx, k, string(v))
	return err
}

// Get is linearizable: etcd's default, the same guarantee as the KVStore cluster's reads.
func (s etcdStore) get(ctx context.Context, k string) error { _, err := s.pick().Get(ctx, k); return err }
func (s etcdStore) close() {
	for _, c := range s.cs {
		c.Close()
	}
}

type result struct {
	Target   string  `json:"target"`
	Op       string  `json:"op"`
	Clients  int     `json:"clients"`
	Value    int     `json:"value_bytes"`
	Ops      int64   `json:"ops"`
	Errors   int64   `json:"errors"`
	Seconds  float64 `json:"seconds"`
	OpsPerS  float64 `json:"ops_per_sec"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
}

func main() {
	target := flag.String("target", "redis", "redis (a Redis Cluster, e.g. KVStore's) or etcd")
	endpoints := flag.String("endpoints", "127.0.0.1:7001", "comma-separated host:port list")
	op := flag.String("op", "put", "put or get")
	clients := flag.Int("clients", 50, "concurrent clients")
	valueSize := flag.Int("value", 100, "value size in bytes")
	keys := flag.Int("keys", 100000, "distinct keys")
	duration := flag.Duration("duration", 20*time.Second, "measured time")
	warmup := flag.Duration("warmup", 5*time.Second, "unmeasured time before it")
	cluster := flag.Bool("cluster", true, "redis: a Redis Cluster (false: one server)")
	flag.Parse()

	eps := strings.Split(*endpoints, ",")
	var s store
	switch *target {
	case "redis":
		if *cluster {
			s = redisStore{redis.NewClusterClient(&redis.ClusterOptions{Addrs: eps, PoolSize: *clients})}
		} else {
			s = redisStore{redis.NewClient(&redis.Options{Addr: eps[0], PoolSize: *clients})}
		}
	case "etcd":
		var cs []*clientv3.Client
		for i := 0; i < 8; i++ {
			c, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second})
			if err != nil {
				fmt.Fprintln(os.Stderr, "etcd:", err)
				os.Exit(1)
			}
			cs = append(cs, c)
		}
		s = etcdStore{cs}
	default:
		fmt.Fprintln(os.Stderr, "unknown target", *target)
		os.Exit(2)
	}
	defer s.close()

	value := make([]byte, *valueSize)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	ctx := context.Background()
	if *op == "get" { // the keys exist before they are read
		var wg sync.WaitGroup
		per := (*keys + *clients - 1) / *clients
		for c := 0; c < *clients; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				for i := c * per; i < (c+1)*per && i < *keys; i++ {
					_ = s.put(ctx, fmt.Sprintf("key:%d", i), value)
				}
			}(c)
		}
		wg.Wait()
	}

	var measuring atomic.Bool
	var stop atomic.Bool
	var ops, errs atomic.Int64
	lat := make([][]time.Duration, *clients)
	var wg sync.WaitGroup
	for c := 0; c < *clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(c) + time.Now().UnixNano()))
			for !stop.Load() {
				k := fmt.Sprintf("key:%d", r.Intn(*keys))
				t0 := time.Now()
				var err error
				if *op == "put" {
					err = s.put(ctx, k, value)
				} else {
					err = s.get(ctx, k)
				}
				d := time.Since(t0)
				if measuring.Load() {
					if err != nil {
						errs.Add(1)
					} else {
						ops.Add(1)
						lat[c] = append(lat[c], d)
					}
				}
			}
		}(c)
	}
	time.Sleep(*warmup)
	measuring.Store(true)
	start := time.Now()
	time.Sleep(*duration)
	measuring.Store(false)
	elapsed := time.Since(start).Seconds()
	stop.Store(true)
	wg.Wait()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000
	}
	res := result{*target, *op, *clients, *valueSize, ops.Load(), errs.Load(), elapsed,
		float64(ops.Load()) / elapsed, pct(0.50), pct(0.99), pct(1.0)}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}
