// Command subtitles converts uploaded subtitle files (often UTF-16 with a BOM) to UTF-8.
package main

import (
	"io"
	"log"
	"net/http"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

func convert(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "bad upload", http.StatusBadRequest)
		return
	}
	decoder := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewDecoder()
	text, _, err := transform.String(decoder, string(raw))
	if err != nil {
		http.Error(w, "not UTF-16", http.StatusUnprocessableEntity)
		return
	}
	io.WriteString(w, text)
}

func main() {
	http.HandleFunc("/convert", convert)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
