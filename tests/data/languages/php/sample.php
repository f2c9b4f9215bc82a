<?php

declare(strict_types=1);

namespace App\Transport;

use App\Net\HttpClient;
use Psr\Log\LoggerInterface as PsrLogger;
use function App\Support\format_line;

require_once 'bootstrap.php';

/**
 * Something that can send a message.
 */
interface Sender
{
    public function send(string $msg): bool;
}

trait CountsMessages
{
    private int $sent = 0;

    protected function bump(): void
    {
        $this->sent++;
    }
}

/**
 * A client for the message server.
 */
class Client implements Sender
{
    use CountsMessages;

    private HttpClient $http;

    public function __construct(private string $base)
    {
        $this->http = new HttpClient($base);
    }

    /** Posts one message. */
    public function send(string $msg): bool
    {
        $this->bump();
        return $this->http->post($this->url('/send'), $msg);
    }

    private function url(string $path): string
    {
        return $this->base . $path;
    }

    public static function fromEnv(): self
    {
        return new static(getenv('BASE_URL'));
    }
}

final class Logger extends BaseLogger implements Sender
{
    public function __construct(private PsrLogger $log)
    {
        parent::__construct();
    }

    public function send(string $msg): bool
    {
        $this->log->info(format_line($msg));
        return self::ok();
    }

    private static function ok(): bool
    {
        return true;
    }
}

enum Level: string
{
    case Info = 'info';

    public function label(): string
    {
        return ucfirst($this->value);
    }
}

function broadcast(array $senders, string $msg): int
{
    $ok = array_filter($senders, fn (Sender $s) => $s->send($msg));
    return count($ok);
}

$client = new Client('http://localhost');
$client->send('hello');
$logger = new Logger(LoggerFactory::create());
$logger->send('hello');
echo broadcast([$client, $logger], 'bye');

namespace App\Cli;

/** Sends one greeting from the command line. */
function main(): void
{
    \App\Transport\broadcast([], 'hi');
}
