package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// uploadDirect sends one photo the direct way and returns the time the API
// spent answering create and complete; the S3 PUTs in between are the
// client's and are not counted.
func uploadDirect(hc *http.Client, base, token string, data []byte) (create, complete time.Duration, ok bool) {
	sum := sha256.Sum256(data)
	decl := fmt.Sprintf(`{"bytes":%d,"sha256":%q,"content_type":"image/jpeg"}`, len(data), hex.EncodeToString(sum[:]))
	var t struct {
		ID       string `json:"id"`
		PartSize int64  `json:"part_size"`
		Parts    []struct {
			Number int64  `json:"number"`
			Bytes  int64  `json:"bytes"`
			URL    string `json:"url"`
		} `json:"parts"`
	}
	t0 := time.Now()
	if code := call(hc, "POST", base+"/v1/uploads", token, strings.NewReader(decl), &t); code != http.StatusCreated {
		log.Printf("create: HTTP %d", code)
		return 0, 0, false
	}
	create = time.Since(t0)
	for _, p := range t.Parts {
		off := (p.Number - 1) * t.PartSize
		if code := call(hc, "PUT", p.URL, "", bytes.NewReader(data[off:off+p.Bytes]), nil); code != http.StatusOK {
			log.Printf("part %d: HTTP %d", p.Number, code)
			return 0, 0, false
		}
	}
	t1 := time.Now()
	code := call(hc, "POST", base+"/v1/uploads/"+t.ID+"/complete", token, nil, nil)
	complete = time.Since(t1)
	if code != http.StatusAccepted {
		log.Printf("complete: HTTP %d", code)
	}
	return create, complete, code == http.StatusAccepted
}

func call(hc *http.Client, method, url, token string, body io.Reader, out any) int {
	req, _ := http.NewRequest(method, url, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		log.Printf("%s: %v", method, err)
		return 0
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode < 300 {
		json.NewDecoder(resp.Body).Decode(out)
	}
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// metricsURL is where the API serves /metrics: not its public address
// unless METRICS_ADDR=public.
var metricsURL = flag.String("metrics", "http://127.0.0.1:9090", "the server's internal metrics address (its METRICS_ADDR; the -url when that is public)")

// apiCPU reads process_cpu_seconds_total from the API's /metrics: the
// CPU the API process has used, whatever the generator does.
func apiCPU(hc *http.Client) float64 {
	resp, err := hc.Get(*metricsURL + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "process_cpu_seconds_total "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}
