greeting: hello
