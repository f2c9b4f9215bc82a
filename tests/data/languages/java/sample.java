package com.example.transport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.*;
import static java.util.Objects.requireNonNull;

/** Something that can deliver frames. */
interface Sender {
    int send(Frame frame) throws IOException;
}

/** One frame on the wire. */
record Frame(String topic, byte[] payload) {
    Frame {
        requireNonNull(topic);
    }
}

enum Level { DEBUG, INFO }

/**
 * Base transport: writes frames to a socket.
 */
class Transport implements Sender {
    protected final String host;
    private final List<Frame> sent = new ArrayList<>();

    Transport(String host) {
        this.host = host;
    }

    @Override
    public int send(Frame frame) throws IOException {
        sent.add(frame);
        return frame.payload().length;
    }

    /** Send a text message as a frame on the default topic. */
    public int send(String text) throws IOException {
        return send(new Frame("default", text.getBytes()));
    }

    List<Frame> history() {
        return new ArrayList<>(sent);
    }
}

// Retries failed sends.
class RetryingTransport extends Transport {
    private final int attempts;

    RetryingTransport(String host, int attempts) {
        super(host);
        this.attempts = attempts;
    }

    @Override
    public int send(Frame frame) throws IOException {
        IOException last = null;
        for (int i = 0; i < attempts; i++) {
            try {
                return super.send(frame);
            } catch (IOException e) {
                last = e;
            }
        }
        throw last;
    }
}

final class Client {
    private static final ScheduledExecutorService POOL = Executors.newSingleThreadScheduledExecutor();
    private final Sender sender;

    public Client(Sender sender) {
        this.sender = sender;
    }

    public void sendLater(Frame frame, long delayMs) {
        Runnable task = new Runnable() {
            @Override
            public void run() {
                try {
                    sender.send(frame);
                } catch (IOException e) {
                    log(Level.INFO, e.getMessage());
                }
            }
        };
        POOL.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    static void log(Level level, String message) {
        System.err.println(level + ": " + message);
    }

    public static void main(String[] args) throws IOException {
        Transport transport = new RetryingTransport("localhost", 3);
        Client client = new Client(transport);
        transport.send("hello");
        client.sendLater(new Frame("jobs", new byte[0]), 100L);
        POOL.shutdown();
    }
}
