module example.com/linkextract

go 1.21

require golang.org/x/net v0.5.0

require golang.org/x/text v0.6.0 // indirect
