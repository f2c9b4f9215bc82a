package com.acme;

import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;

// Classes of the JDK (java.*, javax.*): their methods are never the repository's, even
// where a repository class defines one of the name (Token.toString, Token.incrementAndGet)
public class Report {
    public String render() {
        final StringWriter sw = new StringWriter();
        final AtomicLong count = new AtomicLong();
        count.incrementAndGet();
        return sw.toString();
    }
}

class Token {
    public long incrementAndGet() {
        return 1;
    }

    @Override
    public String toString() {
        return "token";
    }
}
