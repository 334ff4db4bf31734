module example.com/subtitles

go 1.21

require golang.org/x/text v0.3.2
