"""Build metadata stamped by CI."""

BUILD_COMMIT_SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"
REQUEST_ID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
