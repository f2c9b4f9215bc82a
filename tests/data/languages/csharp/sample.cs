using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Json = System.Text.Json.JsonSerializer;
using static System.Math;
using Example.Transport;

var transport = new RetryingTransport("localhost", attempts: 3);
var client = new Client(transport);
await client.SendLaterAsync(new Frame("jobs", Array.Empty<byte>()), 100);
Console.WriteLine(Json.Serialize(new { sent = transport.Sent }));

namespace Example.Transport
{
    /// <summary>Something that can deliver frames.</summary>
    public interface ISender
    {
        int Send(Frame frame);
    }

    /// <summary>One frame on the wire.</summary>
    public record Frame(string Topic, byte[] Payload);

    public enum Level { Debug, Info }

    public struct Stats
    {
        public int Count;
        public void Add(int bytes) => Count += Max(bytes, 0);
    }

    /// <summary>
    /// Base transport: writes frames to a socket.
    /// </summary>
    public class Transport : ISender
    {
        protected readonly string Host;
        private readonly List<Frame> _sent = new List<Frame>();

        public Transport(string host)
        {
            Host = host;
        }

        public int Sent => _sent.Count;

        public virtual int Send(Frame frame)
        {
            _sent.Add(frame);
            return frame.Payload.Length;
        }

        /// <summary>Send a text message on the default topic.</summary>
        public int Send(string text) => Send(new Frame("default", System.Text.Encoding.UTF8.GetBytes(text)));
    }

    // Retries failed sends.
    public sealed class RetryingTransport : Transport
    {
        private readonly int _attempts;

        public RetryingTransport(string host, int attempts) : base(host)
        {
            _attempts = attempts;
        }

        public override int Send(Frame frame)
        {
            for (var i = 0; ; i++)
            {
                try
                {
                    return base.Send(frame);
                }
                catch (Exception) when (i + 1 < _attempts)
                {
                    Log(Level.Info, $"retry {i}");
                }
            }

            void Log(Level level, string message) => Console.Error.WriteLine($"{level}: {message}");
        }
    }

    public class Client
    {
        private readonly ISender _sender;
        private Stats _stats;

        public Client(ISender sender) => _sender = sender;

        public async Task SendLaterAsync(Frame frame, int delayMs)
        {
            await Task.Delay(delayMs);
            var size = _sender?.Send(frame) ?? 0;
            _stats.Add(size);
        }
    }
}
